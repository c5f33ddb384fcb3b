package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
)

// WithTraceParent returns ctx carrying the W3C trace context a client sent
// in a request's _meta ("traceparent", and "tracestate" with it), so that
// the call's span continues the client's trace. Without a valid
// traceparent it returns ctx unchanged.
func WithTraceParent(ctx context.Context, meta map[string]any) context.Context {
	tp, _ := meta["traceparent"].(string)
	if tp == "" {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": tp}
	if ts, ok := meta["tracestate"].(string); ok && ts != "" {
		carrier["tracestate"] = ts
	}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}
