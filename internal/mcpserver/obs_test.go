package mcpserver

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/telemetry"
	"github.com/cdpkit/cdpkit/internal/telemetry/export"
	"github.com/cdpkit/cdpkit/internal/telemetry/otlptest"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// obsEnv is the shared browser's env recording to tel.
func obsEnv(t *testing.T, tel *telemetry.Telemetry) *tools.Env {
	env := *browserEnv(t)
	env.Telemetry = tel
	return &env
}

// TestTraceparentInMetaIsTheParent sends a W3C traceparent in a tool
// call's _meta and checks that the exported browser/take_snapshot span
// continues that trace under that parent.
func TestTraceparentInMetaIsTheParent(t *testing.T) {
	t.Parallel()
	recv := otlptest.New(t)
	tel, err := export.New(t.Context(), &telemetry.Options{}, &export.Options{Getenv: recv.Env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	cs := connect(t, serveSessions(t, obsEnv(t, tel), nil), nil)
	const traceID, parentID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "take_snapshot", Arguments: map[string]any{},
		Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01", "tracestate": "vendor=x"}})
	if err != nil || res.IsError {
		t.Fatalf("take_snapshot: %v %v", err, res)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, s := range recv.Spans() {
		if s.Name != "browser/take_snapshot" {
			continue
		}
		if got := hex.EncodeToString(s.TraceId); got != traceID {
			t.Errorf("trace id = %s, want the client's %s", got, traceID)
		}
		if got := hex.EncodeToString(s.ParentSpanId); got != parentID {
			t.Errorf("parent span = %s, want the client's %s", got, parentID)
		}
		if s.TraceState != "vendor=x" {
			t.Errorf("trace state = %q, want the client's", s.TraceState)
		}
		return
	}
	t.Fatalf("no browser/take_snapshot span among %d", len(recv.Spans()))
}

// TestMetricsAfterTwentyCalls makes 20 calls over two HTTP sessions (two
// of them failing), closes the sessions and reads the Prometheus text.
func TestMetricsAfterTwentyCalls(t *testing.T) {
	t.Parallel()
	tel, err := export.New(t.Context(), &telemetry.Options{}, &export.Options{Getenv: func(string) string { return "" }, KeepMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	env := obsEnv(t, tel)
	url := serveSessions(t, env, nil)
	page := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>m</title><button>Go</button>")
	})).URL
	scrape := func() string {
		rec := httptest.NewRecorder()
		tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		return rec.Body.String()
	}
	var sessions []*mcp.ClientSession
	for range 2 {
		cs := connect(t, url, nil)
		sessions = append(sessions, cs)
		ok(t, cs, "navigate_page", map[string]any{"url": page}, nil) // 1
		for range 7 {
			ok(t, cs, "take_snapshot", nil, nil) // 8
		}
		if res := call(t, cs, "click", map[string]any{"uid": "e999999"}); !res.IsError { // 9
			t.Fatalf("click on an unknown ref succeeded")
		}
		ok(t, cs, "list_pages", nil, nil) // 10
	}
	if body := scrape(); !strings.Contains(body, "browser_session_active 2") {
		t.Errorf("with two sessions open, /metrics lacks browser_session_active 2:\n%s", body)
	}
	for _, cs := range sessions {
		cs.Close()
	}
	var body string
	browsertest.Eventually(t, 30*time.Second, func() error {
		body = scrape()
		if !strings.Contains(body, "browser_session_active 0\n") {
			return fmt.Errorf("sessions still active")
		}
		return nil
	})
	count := 0
	for _, m := range regexp.MustCompile(`(?m)^browser_command_duration_milliseconds_count\{[^}]*\} (\d+)$`).FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[1])
		count += n
	}
	if count != 20 {
		t.Errorf("the command histogram counts %d calls, want 20:\n%s", count, body)
	}
	for _, want := range []string{
		`browser_command_duration_milliseconds_count{status="success",tool="take_snapshot"} 14`,
		`browser_command_duration_milliseconds_count{status="error",tool="click"} 2`,
		`browser_command_errors_total{code="REF_NOT_FOUND",tool="click"} 2`,
		"browser_session_duration_milliseconds_count 2",
		"browser_snapshot_ref_count_count 14",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogsNameTheMcpSessionID: the records of an HTTP session's calls
// carry the Mcp-Session-Id its client sees (issue 39: they carried an id
// of cdpkit's own that no client could match).
func TestLogsNameTheMcpSessionID(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	tel, err := telemetry.New(&telemetry.Options{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	env := obsEnv(t, tel)
	env.Log = log
	cs := connect(t, serveSessions(t, env, &SessionOptions{InstanceID: "node-1"}), nil)
	ok(t, cs, "list_pages", nil, nil)
	id := cs.ID()
	if !strings.HasPrefix(id, "node-1.") {
		t.Fatalf("session id %q does not start with the instance id", id)
	}
	var sawCall, sawCreated bool
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		switch rec["msg"] {
		case "tool call":
			sawCall = true
			if rec["session_id"] != id {
				t.Errorf("tool call logged session_id %v, want the client's Mcp-Session-Id %q", rec["session_id"], id)
			}
		case "session created":
			sawCreated = true
			if rec["session_id"] != id {
				t.Errorf("session created logged session_id %v, want %q", rec["session_id"], id)
			}
		}
	}
	if !sawCall || !sawCreated {
		t.Errorf("logs lack a tool call (%v) or session created (%v) record:\n%s", sawCall, sawCreated, logs.String())
	}
}
