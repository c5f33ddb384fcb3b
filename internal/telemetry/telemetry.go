// Package telemetry is what cdpkit tells its operator about itself: one
// slog record per tool call and per session event, OpenTelemetry spans
// (browser/<tool>, with a child span per step) and metrics, handed to the
// exporters the caller gives (package otlp builds them from the standard
// OTEL_EXPORTER_OTLP_* variables; the library itself links none), and a
// Prometheus text endpoint for the metrics.
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
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
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

// Options configure [New]. Nil means defaults. The providers come from
// package export (OTLP, Prometheus), which only the binary links: the
// library needs nothing but the OpenTelemetry API.
type Options struct {
	// Log receives the records; nil discards them.
	Log *slog.Logger
	// Tracer, if set, records the spans; nil makes spans that carry ids
	// (a trace id for every record) but are never recorded.
	Tracer trace.TracerProvider
	// Meter, if set, records the metrics; nil records none.
	Meter metric.MeterProvider
	// Flush flushes and stops the providers; [Telemetry.Shutdown] calls
	// it with a context bounded by FlushTimeout.
	Flush func(context.Context) error
	// Metrics, if set, serves the metrics for [Telemetry.MetricsHandler].
	Metrics http.Handler
	// Gauges, if set, is sampled when metrics are collected.
	Gauges func() Gauges
}

// Telemetry records tool calls and sessions. Its methods are safe for
// concurrent use, and a nil *Telemetry records only the slog records of a
// default logger: see [Off].
type Telemetry struct {
	log       *slog.Logger
	tracer    trace.Tracer
	exporting bool                        // spans go to a collector
	flush     func(context.Context) error // nil when there is nothing to flush
	metrics   http.Handler                // nil without Options.Metrics
	inst      instruments
	gauges    func() Gauges

	mu       sync.Mutex
	sessions map[string]*session   // guarded by mu; open sessions by id
	lastSnap map[snapKey]time.Time // guarded by mu; last snapshot per session and tab, for stale-ref ages
}

// session is an open session's bookkeeping.
type session struct {
	start    time.Time
	commands int
}

// Off returns a Telemetry that only writes the slog records to log: no
// spans are exported and no metrics kept.
func Off(log *slog.Logger) *Telemetry {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Telemetry{log: log, tracer: idTracer{}, sessions: map[string]*session{}, lastSnap: map[snapKey]time.Time{}}
	t.inst = newInstruments(metricnoop.NewMeterProvider().Meter(scope))
	return t
}

// Scope is the instrumentation scope of cdpkit's spans and metrics.
const Scope = "github.com/cdpkit/cdpkit"

const scope = Scope

// New returns a Telemetry that records spans and metrics with o's
// providers. With neither it is [Off].
func New(o *Options) (*Telemetry, error) {
	if o == nil {
		o = &Options{}
	}
	t := Off(o.Log)
	t.gauges, t.flush, t.metrics = o.Gauges, o.Flush, o.Metrics
	if o.Tracer != nil {
		t.tracer, t.exporting = o.Tracer.Tracer(scope), true
	}
	if o.Meter != nil {
		meter := o.Meter.Meter(scope)
		t.inst = newInstruments(meter)
		if err := t.observeProcess(meter); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Exporting reports whether spans go to a collector.
func (t *Telemetry) Exporting() bool { return t != nil && t.exporting }

// MetricsHandler serves the metrics (Options.Metrics); nil when there is
// none.
func (t *Telemetry) MetricsHandler() http.Handler {
	if t == nil {
		return nil
	}
	return t.metrics
}

// Shutdown flushes and stops the exporters, bounded by ctx and by
// FlushTimeout, whichever ends first. It is safe to call more than once
// when Options.Flush is.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil || t.flush == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, FlushTimeout)
	defer cancel()
	return t.flush(ctx)
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
