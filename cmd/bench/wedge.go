package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// wedgeResult holds the never-wedge timings: how soon a call comes back
// when the page or the browser misbehaves. The tests assert the outcome
// (the right code, before the call's own deadline); how soon is measured
// here.
type wedgeResult struct {
	hungBudget   time.Duration // the deadline given to the click on a spinning page
	hungReturned time.Duration // when that click came back
	hungCode     string        // and with which code
	otherTab     latency       // take_snapshot of another tab while one spins
	dialog       time.Duration // click that opens an alert → result
	dialogCode   string
	crash        time.Duration // SIGKILL of the browser → the pending call's result
	crashCode    string
	relaunch     time.Duration // the next call after the crash, which starts a browser
}

// benchWedge runs its own `cdpkit mcp` (it kills that one's browser) on the
// fixture pages.
func benchWedge(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*wedgeResult, error) {
	srv, err := serveFixtures()
	if err != nil {
		return nil, fmt.Errorf("serving the fixture pages: %w", err)
	}
	defer srv.Close()
	base := srv.URL
	tmp := filepath.Join(scratch, "wedge-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}
	c, err := startChild(ctx, log, cfg, tmp, "full")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res := &wedgeResult{hungBudget: 3 * time.Second}

	spin, err := c.newPage(ctx, base+"/spin.html")
	if err != nil {
		return nil, c.withStderr(err)
	}
	other, err := c.newPage(ctx, base+"/a.html")
	if err != nil {
		return nil, c.withStderr(err)
	}

	// A click whose handler never returns, and another tab meanwhile.
	hung := make(chan struct{})
	go func() {
		defer close(hung)
		start := time.Now()
		r, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "click", Arguments: map[string]any{
			"target": spin, "selector": "#spin", "timeout_ms": res.hungBudget.Milliseconds()}})
		res.hungReturned = time.Since(start)
		res.hungCode = codeOf(r, err)
	}()
	for i := 0; i < 10; i++ {
		start := time.Now()
		if _, err := c.call(ctx, "take_snapshot", map[string]any{"target": other}); err != nil {
			return nil, c.withStderr(fmt.Errorf("the other tab while one spins: %w", err))
		}
		res.otherTab = append(res.otherTab, time.Since(start))
	}
	<-hung
	log.Info("hung tab done", "returned_ms", res.hungReturned.Milliseconds(), "code", res.hungCode, "other_tab_p50_ms", res.otherTab.p(50).Milliseconds())
	if _, err := c.callAny(ctx, "close_page", map[string]any{"target": spin}); err != nil {
		return nil, c.withStderr(err)
	}

	// A click that opens an alert.
	if _, err := c.call(ctx, "navigate_page", map[string]any{"target": other, "url": base + "/spin.html"}); err != nil {
		return nil, c.withStderr(err)
	}
	start := time.Now()
	r, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "click", Arguments: map[string]any{"target": other, "selector": "#ask"}})
	res.dialog = time.Since(start)
	res.dialogCode = codeOf(r, err)
	if _, err := c.callAny(ctx, "handle_dialog", map[string]any{"target": other, "action": "accept"}); err != nil {
		return nil, c.withStderr(err)
	}

	// The browser killed under a pending call.
	pid := browserPID(c.cmd.Process.Pid)
	if pid == 0 {
		return nil, fmt.Errorf("no browser process under cdpkit (pid %d)", c.cmd.Process.Pid)
	}
	pending := make(chan time.Time, 1)
	go func() {
		r, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for", Arguments: map[string]any{
			"target": other, "text": []string{"never on this page"}, "timeout": 30000, "timeout_ms": 35000}})
		res.crashCode = codeOf(r, err)
		pending <- time.Now()
	}()
	// Give the call time to reach the browser: a bench, not a test, so a
	// plain pause is fine here.
	time.Sleep(500 * time.Millisecond)
	select {
	case <-pending:
		return nil, fmt.Errorf("the pending wait_for returned before the kill: %s", res.crashCode)
	default:
	}
	killed := time.Now()
	if p, err := os.FindProcess(pid); err != nil || p.Kill() != nil {
		return nil, fmt.Errorf("killing the browser (pid %d) failed", pid)
	}
	res.crash = (<-pending).Sub(killed)
	start = time.Now()
	if _, err := c.callAny(ctx, "list_pages", nil); err != nil {
		return nil, c.withStderr(err)
	}
	res.relaunch = time.Since(start)
	log.Info("crash done", "pending_ms", res.crash.Milliseconds(), "code", res.crashCode, "relaunch_ms", res.relaunch.Milliseconds())
	return res, nil
}

// newPage opens url in a new tab and returns the tab's id.
func (c *child) newPage(ctx context.Context, url string) (string, error) {
	res, err := c.callResult(ctx, "new_page", map[string]any{"url": url})
	if err != nil {
		return "", err
	}
	m, _ := res.StructuredContent.(map[string]any)
	id, _ := m["id"].(string)
	if id == "" {
		return "", fmt.Errorf("new_page gave no tab id: %s", firstText(res))
	}
	return id, nil
}

// callAny is call that accepts a tool error as an outcome: only a protocol
// failure is an error.
func (c *child) callAny(ctx context.Context, name string, args map[string]any) (string, error) {
	r, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return firstText(r), nil
}

// codeOf is the error code of a tool result, "ok" for a success, or the
// protocol error.
func codeOf(r *mcp.CallToolResult, err error) string {
	if err != nil {
		return "protocol error: " + err.Error()
	}
	if !r.IsError {
		return "ok"
	}
	if m, ok := r.StructuredContent.(map[string]any); ok {
		if code, ok := m["code"].(string); ok {
			return code
		}
	}
	text := firstText(r)
	if i := strings.IndexByte(text, ']'); strings.HasPrefix(text, "[") && i > 0 {
		return text[1:i]
	}
	return "error"
}

// browserPID returns the first Chromium process under root, the browser's
// main process, or 0.
func browserPID(root int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := sysproc.Parent(pid); ok && ppid == root && sysproc.IsBrowser(pid) {
			return pid
		}
	}
	return 0
}

// addWedgeFigures adds the never-wedge timings to the report.
func (r *report) addWedgeFigures(w *wedgeResult) {
	r.addMillis("wedge.hung_tab", fmt.Sprintf("never-wedge: click on a page spinning forever, %s deadline → result (%s)", w.hungBudget, w.hungCode), w.hungReturned)
	r.addMillis("wedge.hung_overshoot", "never-wedge: how far past its deadline that click returned", w.hungReturned-w.hungBudget)
	r.addMillis("wedge.other_tab.p50", "never-wedge: take_snapshot of another tab while one spins, p50", w.otherTab.p(50))
	r.addMillis("wedge.dialog", fmt.Sprintf("never-wedge: click that opens an alert → result (%s)", w.dialogCode), w.dialog)
	r.addMillis("wedge.crash", fmt.Sprintf("never-wedge: browser SIGKILLed under a pending wait_for → its result (%s)", w.crashCode), w.crash)
	r.addMillis("wedge.relaunch", "never-wedge: the next call after the crash (starts a new browser)", w.relaunch)
}
