package telemetry

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Call is one tool call being recorded: its span, the span of the step
// under way, and what the record will say. Start one with
// [Telemetry.StartCall] and end it once with [Call.End]. Its methods are
// safe for concurrent use and do nothing on a nil *Call.
type Call struct {
	t       *Telemetry
	tool    string
	session string
	phase   string
	start   time.Time
	span    trace.Span
	spanCtx context.Context // the call span's context, parent of the step spans

	mu     sync.Mutex
	target string     // guarded by mu; the tab's id once resolved
	step   trace.Span // guarded by mu; the step span under way, or nil
	queued bool       // guarded by mu; counted in the queue depth
	ended  bool       // guarded by mu
}

type callKey struct{}

// CallFrom returns the call ctx records, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// StartCall starts recording a call of tool in session (an MCP session
// id, "cli:NAME" or "stdio"); phase is navigate, snapshot, interact or
// verify. The span is a child of the span in ctx (a client's traceparent,
// see [WithTraceParent]), else a new trace's root. The returned context
// carries the call.
func (t *Telemetry) StartCall(ctx context.Context, tool, session, phase string) (context.Context, *Call) {
	c := &Call{t: t, tool: tool, session: session, phase: phase, start: time.Now()}
	ctx, c.span = t.tracer.Start(ctx, "browser/"+tool, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("tool", tool), attribute.String("session.id", session), attribute.String("phase", phase)))
	c.spanCtx = ctx
	return context.WithValue(ctx, callKey{}, c), c
}

// SetTarget notes the tab the call works on.
func (c *Call) SetTarget(tabID string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.target = tabID
	c.mu.Unlock()
}

// queueStep is the step the browser names while a call waits its turn.
const queueStep = "waiting for the tab's earlier calls to finish"

// Step ends the step span under way and starts one for what, unless what
// is "" (the step ended). The browser's steps ("reading the accessibility
// tree", "waiting for the tab's earlier calls to finish"…) become the
// call's child spans; waiting in a tab's queue counts in the queue depth.
func (c *Call) Step(what string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.endStepLocked()
	if what == "" {
		return
	}
	if what == queueStep && !c.queued {
		c.queued = true
		c.t.inst.queueDepth.Add(context.Background(), 1)
	}
	if c.span.IsRecording() {
		_, c.step = c.t.tracer.Start(c.spanCtx, what)
	}
}

func (c *Call) endStepLocked() {
	if c.step != nil {
		c.step.End()
		c.step = nil
	}
	if c.queued {
		c.queued = false
		c.t.inst.queueDepth.Add(context.Background(), -1)
	}
}

// Outcome is how a call ended, as the registry tells it.
type Outcome struct {
	Code  string // the error code; "" on success
	URL   string // the tab's URL after the call, query redacted; "" when unknown
	Refs  int    // refs in a snapshot the result carries; -1 when none
	Chars int    // characters of that snapshot; -1 when none
	// Ref is the stale ref of a REF_STALE failure, for its warning.
	Ref string
}

// End records the call: its record at INFO (ERROR when it failed), the
// span's attributes and status, and the metrics. Later calls do nothing.
func (c *Call) End(o Outcome) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.endStepLocked()
	target := c.target
	c.mu.Unlock()
	t := c.t
	d := time.Since(c.start)
	ms := float64(d.Microseconds()) / 1000
	status := "success"
	if o.Code != "" {
		status = "error"
	}
	sc := c.span.SpanContext()
	attrs := []slog.Attr{
		slog.String("trace_id", traceID(sc)),
		slog.String("session_id", c.session),
		slog.String("command", c.tool),
		slog.String("phase", c.phase),
		slog.String("target", target),
		slog.Float64("duration_ms", ms),
		slog.String("status", status),
		slog.String("error_code", o.Code),
		slog.String("url", o.URL),
	}
	if o.Refs >= 0 {
		attrs = append(attrs, slog.Int("refs_count", o.Refs))
	}
	if o.Chars >= 0 {
		attrs = append(attrs, slog.Int("char_count", o.Chars))
	}
	level := slog.LevelInfo
	if o.Code != "" {
		level = slog.LevelError
	}
	ctx := context.Background()
	t.log.LogAttrs(ctx, level, "tool call", attrs...)

	if c.span.IsRecording() {
		c.span.SetAttributes(
			attribute.String("target", target),
			attribute.Float64("duration_ms", ms),
			attribute.String("status", status),
		)
		if o.URL != "" {
			c.span.SetAttributes(attribute.String("url", o.URL))
		}
		if o.Refs >= 0 {
			c.span.SetAttributes(attribute.Int("refs_count", o.Refs))
		}
		if o.Chars >= 0 {
			c.span.SetAttributes(attribute.Int("char_count", o.Chars))
		}
		if o.Code != "" {
			c.span.SetAttributes(attribute.String("error_code", o.Code))
			c.span.SetStatus(codes.Error, o.Code)
		} else {
			c.span.SetStatus(codes.Ok, "")
		}
	}
	c.span.End()

	byTool := metric.WithAttributes(attribute.String("tool", c.tool), attribute.String("status", status))
	t.inst.duration.Record(ctx, ms, byTool)
	if o.Code != "" {
		t.inst.errors.Add(ctx, 1, metric.WithAttributes(attribute.String("code", o.Code), attribute.String("tool", c.tool)))
	}
	if o.Refs >= 0 {
		t.inst.refCount.Record(ctx, int64(o.Refs))
	}
	if o.Chars >= 0 {
		t.inst.charCount.Record(ctx, int64(o.Chars))
	}
	t.countCommand(c.session)
	if o.Refs >= 0 && target != "" {
		t.notedSnapshot(c.session, target)
	}
	switch o.Code {
	case "REF_STALE":
		t.staleRef(c.session, target, o.Ref, sc)
	case "BUSY_QUEUE_FULL":
		t.inst.queueRefuse.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", c.tool)))
		t.log.LogAttrs(ctx, slog.LevelWarn, "queue refused a call",
			slog.String("trace_id", traceID(sc)), slog.String("session_id", c.session),
			slog.String("command", c.tool), slog.String("target", target))
	}
}

// TraceID returns the trace id of the call's span, "" when it has none.
func (c *Call) TraceID() string {
	if c == nil {
		return ""
	}
	return traceID(c.span.SpanContext())
}

func traceID(sc trace.SpanContext) string {
	if !sc.TraceID().IsValid() {
		return ""
	}
	return sc.TraceID().String()
}
