package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// The -trace mode splits each tool's time into the CDP commands it sends:
// cdpkit attaches (--ws-endpoint) through a websocket relay that stamps
// every command and its answer, and every event. It is for finding where a
// tool's time goes, not for the published figures: the relay adds a hop.

// traceRecord is one CDP message seen by the relay.
type traceRecord struct {
	at     time.Time
	method string // for an answer, the method of its command
	dur    time.Duration
	event  bool
}

// traceRelay relays CDP between cdpkit and the browser and records it.
type traceRelay struct {
	upstream string
	srv      *httptest.Server

	mu      sync.Mutex // guards the fields below
	pending map[int64]traceRecord
	records []traceRecord
}

func newTraceRelay(upstream string) (*traceRelay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &traceRelay{upstream: upstream, pending: map[int64]traceRecord{}}
	r.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(r.serve)}}
	r.srv.Start()
	return r, nil
}

func (r *traceRelay) url() string {
	return "ws" + strings.TrimPrefix(r.srv.URL, "http") + "/devtools/browser/relay"
}

func (r *traceRelay) serve(w http.ResponseWriter, req *http.Request) {
	down, err := websocket.Accept(w, req, nil)
	if err != nil {
		return
	}
	defer down.CloseNow()
	down.SetReadLimit(256 << 20)
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	up, _, err := websocket.Dial(ctx, r.upstream, nil)
	if err != nil {
		return
	}
	defer up.CloseNow()
	up.SetReadLimit(256 << 20)
	go func() {
		defer cancel()
		r.pump(ctx, down, up, true)
	}()
	r.pump(ctx, up, down, false)
}

// pump copies messages from src to dst, recording them.
func (r *traceRelay) pump(ctx context.Context, src, dst *websocket.Conn, commands bool) {
	for {
		typ, b, err := src.Read(ctx)
		if err != nil {
			return
		}
		r.record(b, commands)
		if err := dst.Write(ctx, typ, b); err != nil {
			return
		}
	}
}

func (r *traceRelay) record(b []byte, command bool) {
	now := time.Now()
	var m struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"` // of a Page.lifecycleEvent
		} `json:"params"`
	}
	if json.Unmarshal(b, &m) != nil {
		return
	}
	if m.Params.Name != "" && m.Method == "Page.lifecycleEvent" {
		m.Method += " " + m.Params.Name
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case command:
		r.pending[m.ID] = traceRecord{at: now, method: m.Method}
	case m.Method != "":
		r.records = append(r.records, traceRecord{at: now, method: m.Method, event: true})
	default:
		if p, ok := r.pending[m.ID]; ok {
			delete(r.pending, m.ID)
			p.dur = now.Sub(p.at)
			r.records = append(r.records, p)
		}
	}
}

// take returns the records since the last take, in order of time.
func (r *traceRelay) take() []traceRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.records
	r.records = nil
	slices.SortFunc(out, func(a, b traceRecord) int { return a.at.Compare(b.at) })
	return out
}

// traceStep is one tool call to trace.
type traceStep struct {
	name string
	tool string
	args func(i int) map[string]any
}

// runTrace starts a browser with remote debugging, attaches `cdpkit mcp`
// to it through the relay, and prints, for each step, the median call's
// timeline of CDP commands to w.
func runTrace(ctx context.Context, log *slog.Logger, cfg *config, w io.Writer) error {
	ctx, scratch, srv, done, err := standalone(ctx, log, cfg)
	if err != nil {
		return err
	}
	defer done()
	dir := filepath.Join(scratch, "trace-profile")
	db, err := startDebugBrowser(ctx, cfg.chromium, dir, append([]string{"--window-size=1280,720"}, cfg.traceArgs...)...)
	if err != nil {
		return err
	}
	defer db.Close()
	ws, err := activeWebSocket(dir)
	if err != nil {
		return err
	}
	relay, err := newTraceRelay(ws)
	if err != nil {
		return err
	}
	defer relay.srv.Close()

	cmd := exec.Command(cfg.cdpkit, "mcp", "--tools", "full", "--ws-endpoint", relay.url())
	sysproc.SetGroup(cmd, syscall.SIGTERM)
	tail := &sysproc.Tail{Max: 8 << 10}
	cmd.Stderr = tail
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-bench-trace", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("connecting to cdpkit mcp: %w; stderr: %s", err, tail)
	}
	defer session.Close()
	call := func(tool string, args map[string]any) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, toolTimeout)
		defer cancel()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return "", err
		}
		if res.IsError {
			return "", fmt.Errorf("%s failed: %s", tool, firstText(res))
		}
		return firstText(res), nil
	}
	base := srv.URL
	if _, err := call("new_page", map[string]any{"url": base + "/pages/app.html"}); err != nil {
		return err
	}
	snap, err := call("take_snapshot", map[string]any{"interactive": true})
	if err != nil {
		return err
	}
	user, button := refIn(snap, `textbox "Username"`), refIn(snap, `button "Sign in"`)
	steps := []traceStep{
		{"click", "click", func(int) map[string]any { return map[string]any{"uid": button} }},
		{"fill", "fill", func(i int) map[string]any { return map[string]any{"uid": user, "value": fmt.Sprintf("user%d", i)} }},
		{"press_key", "press_key", func(int) map[string]any { return map[string]any{"key": "Tab"} }},
		{"take_snapshot", "take_snapshot", func(int) map[string]any { return nil }},
		{"take_screenshot", "take_screenshot", func(int) map[string]any { return map[string]any{"format": "png"} }},
		{"take_screenshot full page", "take_screenshot", func(int) map[string]any { return map[string]any{"format": "png", "fullPage": true} }},
		{"list_pages", "list_pages", func(int) map[string]any { return nil }},
		{"navigate_page", "navigate_page", func(i int) map[string]any {
			return map[string]any{"url": base + "/" + []string{"a.html", "b.html"}[i%2]}
		}},
	}
	for _, st := range steps {
		type run struct {
			took    time.Duration
			start   time.Time
			records []traceRecord
		}
		var runs []run
		for i := range mcpWarmup + cfg.iters {
			relay.take()
			start := time.Now()
			if _, err := call(st.tool, st.args(i)); err != nil {
				return err
			}
			took := time.Since(start)
			if i >= mcpWarmup {
				runs = append(runs, run{took, start, relay.take()})
			}
		}
		slices.SortFunc(runs, func(a, b run) int { return int(a.took - b.took) })
		med := runs[len(runs)/2]
		fmt.Fprintf(w, "\n## %s: median %.1f ms over %d calls (min %.1f, max %.1f)\n\n", st.name,
			ms(med.took), len(runs), ms(runs[0].took), ms(runs[len(runs)-1].took))
		fmt.Fprintln(w, "| at ms | CDP | took ms |")
		fmt.Fprintln(w, "|---:|---|---:|")
		var cmdTotal time.Duration
		for _, rec := range med.records {
			if rec.event {
				if strings.HasPrefix(rec.method, "Page.lifecycleEvent") || strings.HasPrefix(rec.method, "Page.frame") || strings.HasPrefix(rec.method, "Page.load") || strings.HasPrefix(rec.method, "Page.domContent") {
					fmt.Fprintf(w, "| %.1f | event %s | |\n", ms(rec.at.Sub(med.start)), rec.method)
				}
				continue
			}
			cmdTotal += rec.dur
			fmt.Fprintf(w, "| %.1f | %s | %.1f |\n", ms(rec.at.Sub(med.start)), rec.method, ms(rec.dur))
		}
		fmt.Fprintf(w, "\nsum of CDP command round trips %.1f ms of %.1f ms\n", ms(cmdTotal), ms(med.took))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// activeWebSocket reads the browser websocket URL from the
// DevToolsActivePort file in dir.
func activeWebSocket(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 {
		return "", fmt.Errorf("malformed DevToolsActivePort")
	}
	return "ws://127.0.0.1:" + strings.TrimSpace(lines[0]) + strings.TrimSpace(lines[1]), nil
}
