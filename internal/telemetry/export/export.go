// Package export builds what package telemetry records into: the
// OpenTelemetry SDK's providers, OTLP/HTTP exporters from the standard
// OTEL_EXPORTER_OTLP_* variables, and a Prometheus text endpoint. It is
// apart so that only the binary links the SDK, the exporters and their
// protobuf code: a Go program that imports cdpkit needs only the API.
package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cdpkit/cdpkit/internal/telemetry"
)

// ErrProtocol is an OTEL_EXPORTER_OTLP_PROTOCOL cdpkit does not speak.
var ErrProtocol = errors.New("telemetry: only OTLP over HTTP (http/protobuf) is supported")

// Options configure [New]. Nil means defaults.
type Options struct {
	// Getenv reads the OTEL_* variables; nil means os.Getenv.
	Getenv func(string) string
	// KeepMetrics keeps the metrics in memory for the Telemetry's
	// MetricsHandler (cdpkit serve --metrics-listen), export or not.
	KeepMetrics bool
	// Version is the service.version resource attribute.
	Version string
}

// New returns telemetry.New(o) with spans and metrics exported over
// OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ / _METRICS_
// form) is set, and metrics kept for a Prometheus endpoint with
// x.KeepMetrics. With neither it is telemetry.Off. ctx bounds only the
// setup; the exporters live until the Telemetry's Shutdown.
func New(ctx context.Context, o *telemetry.Options, x *Options) (*telemetry.Telemetry, error) {
	opts := telemetry.Options{}
	if o != nil {
		opts = *o
	}
	if x == nil {
		x = &Options{}
	}
	getenv := x.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	tracesURL := signalURL(getenv, "TRACES", "/v1/traces")
	metricsURL := signalURL(getenv, "METRICS", "/v1/metrics")
	if tracesURL == "" && metricsURL == "" && !x.KeepMetrics {
		return telemetry.New(&opts)
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := getenv(v); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("%w: %s=%s", ErrProtocol, v, p)
		}
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "cdpkit"), attribute.String("service.version", x.Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	var flush []func(context.Context) error
	stop := func(ctx context.Context) error {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs []error
		)
		for _, f := range flush {
			wg.Go(func() {
				err := f(ctx)
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	if tracesURL != "" {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(tracesURL))
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP trace exporter: %w", err)
		}
		// The batcher drops spans rather than wait when its queue is
		// full: a dead collector never slows a call.
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res),
			sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
		opts.Tracer = tp
		flush = append(flush, tp.Shutdown)
	}
	var readers []sdkmetric.Option
	if metricsURL != "" {
		exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(metricsURL))
		if err != nil {
			stop(ctx)
			return nil, fmt.Errorf("telemetry: OTLP metric exporter: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	if x.KeepMetrics {
		reader := sdkmetric.NewManualReader()
		readers = append(readers, sdkmetric.WithReader(reader))
		opts.Metrics = promHandler(reader)
	}
	if len(readers) > 0 {
		mp := sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		opts.Meter = mp
		flush = append(flush, mp.Shutdown)
	}
	opts.Flush = stop
	t, err := telemetry.New(&opts)
	if err != nil {
		stop(ctx)
		return nil, err
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
