package telemetry_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/telemetry"
	"github.com/cdpkit/cdpkit/internal/telemetry/export"
	"github.com/cdpkit/cdpkit/internal/telemetry/otlptest"
)

func jsonLog(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, nil))
}

// records decodes the JSON log lines whose msg is msg.
func records(t *testing.T, buf *bytes.Buffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

func TestOffLogsEveryCall(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tel := telemetry.Off(jsonLog(&buf))
	_, c := tel.StartCall(t.Context(), "click", "stdio", "interact")
	c.SetTarget("T1")
	c.Step("finding the element")
	c.End(telemetry.Outcome{Code: "REF_STALE", Refs: -1, Chars: -1, Ref: "e7"})
	c.End(telemetry.Outcome{}) // once only
	recs := records(t, &buf, "tool call")
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1:\n%s", len(recs), buf.String())
	}
	r := recs[0]
	if r["level"] != "ERROR" || r["command"] != "click" || r["target"] != "T1" || r["error_code"] != "REF_STALE" || r["status"] != "error" {
		t.Errorf("record = %v", r)
	}
	if id, _ := r["trace_id"].(string); len(id) != 32 {
		t.Errorf("trace_id = %q, want a trace id even with export off", id)
	}
	if w := records(t, &buf, "stale ref"); len(w) != 1 || w[0]["ref_id"] != "e7" || w[0]["level"] != "WARN" {
		t.Errorf("stale ref warnings = %v", w)
	}
	if tel.MetricsHandler() != nil {
		t.Errorf("Off has a metrics handler")
	}
}

func TestProtocolOtherThanHTTPIsRefused(t *testing.T) {
	t.Parallel()
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
	_, err := export.New(t.Context(), &telemetry.Options{}, &export.Options{Getenv: func(k string) string { return env[k] }})
	if !errors.Is(err, export.ErrProtocol) {
		t.Fatalf("err = %v, want ErrProtocol", err)
	}
}

func TestPrometheusText(t *testing.T) {
	t.Parallel()
	tel, err := export.New(t.Context(), &telemetry.Options{Gauges: func() telemetry.Gauges { return telemetry.Gauges{Browsers: 1, Tabs: 3} }}, &export.Options{Getenv: func(string) string { return "" }, KeepMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	tel.SessionOpened("s1")
	for i, code := range []string{"", "", "TIMEOUT"} {
		_, c := tel.StartCall(t.Context(), "take_snapshot", "s1", "snapshot")
		c.Step("waiting for the tab's earlier calls to finish")
		c.End(telemetry.Outcome{Code: code, Refs: 10 * i, Chars: 100, URL: "https://example.com/"})
	}
	tel.SessionClosed("s1", telemetry.ReasonExplicit)
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		"# TYPE browser_command_duration_milliseconds histogram",
		`browser_command_duration_milliseconds_count{status="success",tool="take_snapshot"} 2`,
		`browser_command_duration_milliseconds_count{status="error",tool="take_snapshot"} 1`,
		`browser_command_duration_milliseconds_bucket{status="success",tool="take_snapshot",le="+Inf"} 2`,
		`browser_command_errors_total{code="TIMEOUT",tool="take_snapshot"} 1`,
		"browser_session_active 0",
		"browser_session_duration_milliseconds_count 1",
		"browser_snapshot_ref_count_count 3",
		"browser_snapshot_char_count_sum 300",
		"browser_queue_depth 0",
		"browser_browsers_alive 1",
		"browser_tabs_open 3",
		"# TYPE process_memory_rss_bytes gauge",
	} {
		if !strings.Contains(body, want+"\n") && !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type = %q", ct)
	}
}

// TestTraceParentAndSteps checks, on a live receiver, that a call's span
// continues the client's trace and has a child span per step.
func TestTraceParentAndSteps(t *testing.T) {
	t.Parallel()
	r := otlptest.New(t)
	tel, err := export.New(t.Context(), &telemetry.Options{}, &export.Options{Getenv: r.Env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	ctx := telemetry.WithTraceParent(t.Context(), map[string]any{"traceparent": "00-" + traceID + "-" + parentID + "-01"})
	_, c := tel.StartCall(ctx, "click", "s1", "interact")
	c.Step("finding the element")
	c.Step("sending the input")
	c.End(telemetry.Outcome{Code: "TIMEOUT", Refs: -1, Chars: -1})
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var call *struct{ id, parent string }
	children := map[string]string{}
	for _, s := range r.Spans() {
		if hex.EncodeToString(s.TraceId) != traceID {
			t.Errorf("span %s has trace %x, want the client's", s.Name, s.TraceId)
		}
		if s.Name == "browser/click" {
			call = &struct{ id, parent string }{hex.EncodeToString(s.SpanId), hex.EncodeToString(s.ParentSpanId)}
			if s.Status.GetCode() != 2 || otlptest.Attr(s, "error_code") != "TIMEOUT" { // STATUS_CODE_ERROR
				t.Errorf("span status %v, error_code %q; want an error with TIMEOUT", s.Status, otlptest.Attr(s, "error_code"))
			}
		} else {
			children[s.Name] = hex.EncodeToString(s.ParentSpanId)
		}
	}
	if call == nil || call.parent != parentID {
		t.Fatalf("browser/click span = %v, want one whose parent is %s", call, parentID)
	}
	for _, step := range []string{"finding the element", "sending the input"} {
		if children[step] != call.id {
			t.Errorf("step span %q has parent %q, want %s", step, children[step], call.id)
		}
	}
}

// TestDeadCollectorDoesNotHoldShutdown exports to a port nobody listens
// on: Shutdown still returns (bounded by FlushTimeout).
func TestDeadCollectorDoesNotHoldShutdown(t *testing.T) {
	t.Parallel()
	ln := httptest.NewServer(http.NotFoundHandler())
	dead := ln.URL
	ln.Close()
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": dead}
	tel, err := export.New(t.Context(), &telemetry.Options{}, &export.Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		_, c := tel.StartCall(t.Context(), "take_snapshot", "s1", "snapshot")
		c.End(telemetry.Outcome{Refs: 1, Chars: 1})
	}
	tel.Shutdown(context.Background()) // an error is expected; returning is the point
}
