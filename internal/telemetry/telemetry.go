// Package telemetry is what cdpkit tells its operator about itself: one
// slog record per tool call and per session event, OpenTelemetry spans
// (browser/<tool>, with a child span per step) and metrics, exported over
// OTLP/HTTP when the standard OTEL_EXPORTER_OTLP_* variables are set, and
// a Prometheus text endpoint for the metrics.
//
// It knows neither MCP nor CDP: the tool registry starts and ends calls,
// the servers report sessions, and the caller supplies the process gauges.
// Nothing it records carries a tool's arguments: typed text, values,
// cookies and headers never reach a log, a span or a metric.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// FlushTimeout bounds the flush of spans and metrics at exit, so that a
// dead collector never holds the process.
const FlushTimeout = 2 * time.Second

// Gauges are the process figures sampled when metrics are read.
type Gauges struct {
	Browsers int // browsers running (0 or 1 per browser manager)
	Tabs     int // tabs open across them
}

// Options configure [New]. Nil means defaults.
type Options struct {
	// Log receives the records; nil discards them.
	Log *slog.Logger
	// Getenv reads the OTEL_* variables; nil means os.Getenv.
	Getenv func(string) string
	// Metrics keeps the metrics in memory for [Telemetry.MetricsHandler]
	// (cdpkit serve --metrics-listen), export or not.
	Metrics bool
	// Gauges, if set, is sampled when metrics are collected.
	Gauges func() Gauges
	// Version is the service.version resource attribute.
	Version string
}

// Telemetry records tool calls and sessions. Its methods are safe for
// concurrent use, and a nil *Telemetry records only the slog records of a
// default logger: see [Off].
type Telemetry struct {
	log    *slog.Logger
	tracer trace.Tracer
	tp     *sdktrace.TracerProvider // nil when spans are not exported
	mp     *sdkmetric.MeterProvider // nil when metrics are off
	reader *sdkmetric.ManualReader  // nil without Options.Metrics
	inst   instruments
	gauges func() Gauges

	mu       sync.Mutex
	sessions map[string]*session   // guarded by mu; open sessions by id
	lastSnap map[snapKey]time.Time // guarded by mu; last snapshot per session and tab, for stale-ref ages
}

// session is an open session's bookkeeping.
type session struct {
	start    time.Time
	commands int
}

// neverSampled makes spans that carry ids (a trace id for every record)
// but are never recorded or exported: the cost of tracing when it is off.
var neverSampled = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))

// Off returns a Telemetry that only writes the slog records to log: no
// spans are exported and no metrics kept.
func Off(log *slog.Logger) *Telemetry {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Telemetry{log: log, tracer: neverSampled.Tracer(scope), sessions: map[string]*session{}, lastSnap: map[snapKey]time.Time{}}
	t.inst = newInstruments(metricnoop.NewMeterProvider().Meter(scope))
	return t
}

const scope = "github.com/cdpkit/cdpkit"

// ErrProtocol is an OTEL_EXPORTER_OTLP_PROTOCOL cdpkit does not speak.
var ErrProtocol = errors.New("telemetry: only OTLP over HTTP (http/protobuf) is supported")

// New returns a Telemetry that exports spans and metrics over OTLP/HTTP
// when OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ / _METRICS_ form) is
// set, and keeps metrics for a Prometheus endpoint with o.Metrics. With
// neither it is [Off]. ctx bounds only the setup; the exporters live until
// [Telemetry.Shutdown].
func New(ctx context.Context, o *Options) (*Telemetry, error) {
	if o == nil {
		o = &Options{}
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	t := Off(o.Log)
	t.gauges = o.Gauges
	tracesURL := signalURL(getenv, "TRACES", "/v1/traces")
	metricsURL := signalURL(getenv, "METRICS", "/v1/metrics")
	traces, metrics := tracesURL != "", metricsURL != ""
	if !traces && !metrics && !o.Metrics {
		return t, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := getenv(v); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("%w: %s=%s", ErrProtocol, v, p)
		}
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "cdpkit"), attribute.String("service.version", o.Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	if traces {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(tracesURL))
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP trace exporter: %w", err)
		}
		// The batcher drops spans rather than wait when its queue is
		// full: a dead collector never slows a call.
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res),
			sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
		t.tracer = t.tp.Tracer(scope)
	}
	var readers []sdkmetric.Option
	if metrics {
		exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(metricsURL))
		if err != nil {
			t.shutdownTraces(ctx)
			return nil, fmt.Errorf("telemetry: OTLP metric exporter: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	if o.Metrics {
		t.reader = sdkmetric.NewManualReader()
		readers = append(readers, sdkmetric.WithReader(t.reader))
	}
	if len(readers) > 0 {
		t.mp = sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		meter := t.mp.Meter(scope)
		t.inst = newInstruments(meter)
		if err := t.observeProcess(meter); err != nil {
			t.Shutdown(ctx)
			return nil, err
		}
	}
	return t, nil
}

// signalURL is where a signal's OTLP/HTTP export goes: its own
// OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT as given, else the common
// OTEL_EXPORTER_OTLP_ENDPOINT with the signal's path; "" when neither is
// set. The exporters read the other OTEL_EXPORTER_OTLP_* variables
// (headers, timeout, compression, certificates) themselves.
func signalURL(getenv func(string) string, signal, path string) string {
	if u := getenv("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT"); u != "" {
		return u
	}
	if u := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); u != "" {
		return strings.TrimSuffix(u, "/") + path
	}
	return ""
}

// Exporting reports whether spans go to a collector.
func (t *Telemetry) Exporting() bool { return t != nil && t.tp != nil }

// Shutdown flushes and stops the exporters, bounded by ctx and by
// FlushTimeout, whichever ends first. It is safe to call more than once.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, FlushTimeout)
	defer cancel()
	var errs []error
	var wg sync.WaitGroup
	var mu sync.Mutex
	add := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	if t.tp != nil {
		wg.Go(func() { add(t.shutdownTraces(ctx)) })
	}
	if t.mp != nil {
		wg.Go(func() { add(t.mp.Shutdown(ctx)) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (t *Telemetry) shutdownTraces(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return t.tp.Shutdown(ctx)
}

// instruments are the metrics cdpkit records.
type instruments struct {
	duration    metric.Float64Histogram
	errors      metric.Int64Counter
	sessionDur  metric.Float64Histogram
	active      metric.Int64UpDownCounter
	refCount    metric.Int64Histogram
	charCount   metric.Int64Histogram
	queueDepth  metric.Int64UpDownCounter
	queueRefuse metric.Int64Counter
}

func newInstruments(m metric.Meter) instruments {
	var in instruments
	// Errors from the API are for invalid names and units, which these are
	// not; the instruments are no-ops then.
	in.duration, _ = m.Float64Histogram("browser.command.duration", metric.WithUnit("ms"),
		metric.WithDescription("Duration of tool calls, by tool and status."))
	in.errors, _ = m.Int64Counter("browser.command.errors", metric.WithUnit("{error}"),
		metric.WithDescription("Failed tool calls, by error code and tool."))
	in.sessionDur, _ = m.Float64Histogram("browser.session.duration", metric.WithUnit("ms"),
		metric.WithDescription("How long sessions lasted."),
		metric.WithExplicitBucketBoundaries(1e3, 1e4, 6e4, 3e5, 9e5, 1.8e6, 3.6e6, 1.44e7, 8.64e7))
	in.active, _ = m.Int64UpDownCounter("browser.session.active", metric.WithUnit("{session}"),
		metric.WithDescription("Sessions open now."))
	in.refCount, _ = m.Int64Histogram("browser.snapshot.ref_count", metric.WithUnit("{ref}"),
		metric.WithDescription("Refs in a snapshot."),
		metric.WithExplicitBucketBoundaries(0, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000))
	in.charCount, _ = m.Int64Histogram("browser.snapshot.char_count", metric.WithUnit("{char}"),
		metric.WithDescription("Characters in a snapshot's text."),
		metric.WithExplicitBucketBoundaries(0, 500, 1000, 2000, 4000, 8000, 16000, 24000, 50000, 100000))
	in.queueDepth, _ = m.Int64UpDownCounter("browser.queue.depth", metric.WithUnit("{call}"),
		metric.WithDescription("Calls waiting for a tab's earlier calls."))
	in.queueRefuse, _ = m.Int64Counter("browser.queue.refused", metric.WithUnit("{call}"),
		metric.WithDescription("Calls refused because too many waited for their tab."))
	return in
}

// observeProcess registers the gauges read when metrics are collected.
func (t *Telemetry) observeProcess(m metric.Meter) error {
	browsers, err1 := m.Int64ObservableGauge("browser.browsers.alive", metric.WithUnit("{browser}"),
		metric.WithDescription("Browsers running."))
	tabs, err2 := m.Int64ObservableGauge("browser.tabs.open", metric.WithUnit("{tab}"),
		metric.WithDescription("Tabs open."))
	rss, err3 := m.Int64ObservableGauge("process.memory.rss", metric.WithUnit("By"),
		metric.WithDescription("Resident memory of the cdpkit process (not the browser's)."))
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("telemetry: gauges: %w", err)
	}
	_, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		if t.gauges != nil {
			g := t.gauges()
			o.ObserveInt64(browsers, int64(g.Browsers))
			o.ObserveInt64(tabs, int64(g.Tabs))
		}
		if n, ok := residentBytes(); ok {
			o.ObserveInt64(rss, n)
		}
		return nil
	}, browsers, tabs, rss)
	return err
}

// residentBytes reads the process's resident set size where the system
// tells it cheaply (Linux); elsewhere it reports false.
func residentBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	var pages int64
	if _, err := fmt.Sscan(f[1], &pages); err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
