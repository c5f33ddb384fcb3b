package tools

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/telemetry"
	"github.com/cdpkit/cdpkit/internal/telemetry/export"
	"github.com/cdpkit/cdpkit/internal/telemetry/otlptest"
)

// obsNeedle is the password the test types: it must appear in no log
// line, span or metric.
const obsNeedle = "hunter2-Obs-Needle-7781"

const obsPage = `<title>obs</title>
<label>Password <input type="password" id="pw"></label>
<button onclick="document.getElementById('out').textContent='clicked'">Go</button>
<p id="out"></p>`

// TestObsCallRecords runs a click, a fill of a password, a stale ref and a
// call that times out with telemetry exporting to a live OTLP receiver and
// keeping metrics: every call has one JSON record with every field, the
// click has a browser/click span with its attributes and step spans, the
// timeout is an error span with TIMEOUT, and the password is nowhere.
func TestObsCallRecords(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, obsPage) })
	base := browsertest.ServerHandler(t, mux).URL
	recv := otlptest.New(t)
	logs := &logBuffer{}
	tel, err := export.New(t.Context(), &telemetry.Options{Log: slog.New(slog.NewJSONHandler(logs, nil))}, &export.Options{Getenv: recv.Env(nil), KeepMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	h := newHarness(t, nil).with(func(env *Env) { env.Telemetry, env.Client = tel, "obs-session" })

	calls := 0
	call := func(name, args string) (*Result, error) {
		calls++
		return h.result(t, name, args)
	}
	must := func(name, args string) *Result {
		t.Helper()
		res, err := call(name, args)
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return res
	}
	must("navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/?session=s3cr3t-query"))
	snap := must("take_snapshot", `{"interactive":true}`).Text
	ref := func(line string) string {
		m := regexp.MustCompile(`(?m)^\s*(e\d+) ` + regexp.QuoteMeta(line)).FindStringSubmatch(snap)
		if m == nil {
			t.Fatalf("no line %q in the snapshot:\n%s", line, snap)
		}
		return m[1]
	}
	pw, button := ref(`textbox "Password"`), ref(`button "Go"`)
	must("fill", fmt.Sprintf(`{"uid":%q,"value":%q}`, pw, obsNeedle))
	must("type_text", fmt.Sprintf(`{"text":%q}`, obsNeedle))
	must("click", fmt.Sprintf(`{"uid":%q}`, button))
	_, err = call("wait_for", `{"text":["never there"],"timeout":300}`)
	wantCode(t, err, Timeout, "never there")
	must("navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/again"))
	_, err = call("click", fmt.Sprintf(`{"uid":%q}`, button))
	wantCode(t, err, RefStale, button)

	// Metrics, before the flush.
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	metrics := rec.Body.String()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatalf("flushing to a live receiver: %v", err)
	}

	t.Run("a JSON record per call with every field", func(t *testing.T) {
		var records []map[string]any
		var stale []map[string]any
		for line := range strings.Lines(logs.String()) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("log line %q is not JSON: %v", line, err)
			}
			switch m["msg"] {
			case "tool call":
				records = append(records, m)
			case "stale ref":
				stale = append(stale, m)
			}
		}
		if len(records) != calls {
			t.Fatalf("%d records for %d calls:\n%s", len(records), calls, logs.String())
		}
		for _, r := range records {
			for _, k := range []string{"time", "level", "trace_id", "session_id", "command", "phase", "target", "duration_ms", "status", "error_code", "url"} {
				if _, ok := r[k]; !ok {
					t.Errorf("record %v lacks %s", r, k)
				}
			}
			if id, _ := r["trace_id"].(string); len(id) != 32 || r["session_id"] != "obs-session" || r["target"] == "" {
				t.Errorf("record %v: want a trace id, session obs-session and a target", r)
			}
			if u, _ := r["url"].(string); strings.Contains(u, "s3cr3t") {
				t.Errorf("record %v shows the query string", r)
			}
			if r["command"] == "take_snapshot" {
				if n, _ := r["refs_count"].(float64); n < 2 || r["char_count"] == nil || r["phase"] != "snapshot" {
					t.Errorf("snapshot record %v: want refs_count ≥ 2, char_count and phase snapshot", r)
				}
			}
			if r["command"] == "wait_for" && (r["error_code"] != "TIMEOUT" || r["status"] != "error" || r["level"] != "ERROR") {
				t.Errorf("timed-out record %v: want error, TIMEOUT, level ERROR", r)
			}
		}
		if len(stale) != 1 || stale[0]["ref_id"] != button || stale[0]["level"] != "WARN" {
			t.Errorf("stale ref warnings = %v, want one for %s", stale, button)
		} else if age, _ := stale[0]["snapshot_age_ms"].(float64); age < 0 {
			t.Errorf("stale ref warning %v: want the snapshot's age", stale[0])
		}
	})

	t.Run("browser/click span with its steps", func(t *testing.T) {
		spans := recv.Spans()
		var click, timedOut *tracepb.Span
		for _, s := range spans {
			switch {
			case s.Name == "browser/click" && otlptest.Attr(s, "status") == "success":
				click = s
			case s.Name == "browser/wait_for":
				timedOut = s
			}
		}
		if click == nil || timedOut == nil {
			t.Fatalf("no successful browser/click or browser/wait_for span among %d", len(spans))
		}
		for k, want := range map[string]string{"tool": "click", "session.id": "obs-session", "status": "success", "phase": "interact"} {
			if got := otlptest.Attr(click, k); got != want {
				t.Errorf("click span %s = %q, want %q", k, got, want)
			}
		}
		if otlptest.Attr(click, "target") == "" || otlptest.Attr(click, "duration_ms") == "" {
			t.Errorf("click span lacks target or duration_ms: %v", click.Attributes)
		}
		var steps []string
		for _, s := range spans {
			if bytes.Equal(s.ParentSpanId, click.SpanId) {
				steps = append(steps, s.Name)
			}
		}
		if len(steps) < 2 || !strings.Contains(strings.Join(steps, "|"), "resolving the target") {
			t.Errorf("click's child spans = %q, want its steps, resolving the target among them", steps)
		}
		if timedOut.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || otlptest.Attr(timedOut, "error_code") != "TIMEOUT" {
			t.Errorf("timed-out span: status %v, error_code %q; want error, TIMEOUT", timedOut.Status, otlptest.Attr(timedOut, "error_code"))
		}
		t.Logf("click span %s: steps %q", hex.EncodeToString(click.SpanId), steps)
	})

	t.Run("the password is in no log, span or metric", func(t *testing.T) {
		for where, text := range map[string]string{"records": logs.String(), "browser logs": h.logs.String(), "metrics": metrics} {
			if strings.Contains(text, obsNeedle) {
				t.Errorf("the password appears in the %s", where)
			}
		}
		for _, b := range recv.Raw() {
			if bytes.Contains(b, []byte(obsNeedle)) || bytes.Contains(b, []byte("s3cr3t")) {
				t.Errorf("the password or the query appears in an OTLP export")
			}
		}
		if !strings.Contains(metrics, `browser_command_errors_total{code="TIMEOUT",tool="wait_for"} 1`) {
			t.Errorf("metrics lack the TIMEOUT error:\n%s", metrics)
		}
	})
}

// TestObsURL checks where a call's record finds the page URL: a URL field
// or "url" key first (even when empty), else the changes section.
func TestObsURL(t *testing.T) {
	t.Parallel()
	changes := &Changes{URL: "http://changed/"}
	for _, tt := range []struct {
		name string
		data any
		want string
	}{
		{"url key", map[string]any{"url": "http://key/"}, "http://key/"},
		{"url field", &evalData{URL: "http://field/"}, "http://field/"},
		{"empty url field", &evalData{changedIfAny: changedIfAny{Changes: changes}}, ""},
		{"changes", &pointerData{changed: changed{Changes: changes}}, "http://changed/"},
		{"changes map", changesMap{"changes": changes}, "http://changed/"},
		{"no changes", &pointerData{}, ""},
		{"nothing", 42, ""},
	} {
		if got := obsURL(tt.data); got != tt.want {
			t.Errorf("%s: obsURL = %q, want %q", tt.name, got, tt.want)
		}
	}
}
