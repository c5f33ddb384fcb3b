package main

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestMeasureBackends prints Chromium's and Firefox's figures side by side
// through the same MCP server: warm navigate, snapshot, click and
// screenshot p50, and snapshot characters on the same fixture. It is a
// measurement, not a check, so it runs only when asked:
//
//	CDPKIT_MEASURE_BACKENDS=1 go test -count=1 -run TestMeasureBackends -v ./cmd/cdpkit/
func TestMeasureBackends(t *testing.T) {
	if os.Getenv("CDPKIT_MEASURE_BACKENDS") != "1" {
		t.Skip("a measurement; set CDPKIT_MEASURE_BACKENDS=1")
	}
	const iters = 15
	srv := browsertest.Server(t, os.DirFS("testdata"))
	page := srv.URL + "/firefox_form.html"
	for _, backend := range []struct {
		name string
		env  []string
	}{
		{"chromium", []string{"CHROMIUM_PATH=" + browsertest.ExecPath(t)}},
		{"firefox", []string{"FIREFOX_PATH=" + browsertest.FirefoxPath(t)}},
	} {
		t.Run(backend.name, func(t *testing.T) {
			c := startFirefoxMCP(t, backend.env, "--browser", backend.name)
			call := func(name string, args map[string]any) string {
				ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
				defer cancel()
				res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %v", name, err, res)
				}
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					return tc.Text
				}
				return ""
			}
			call("navigate_page", map[string]any{"url": page, "timeout_ms": 120000})
			p50 := func(f func()) time.Duration {
				var ds []time.Duration
				for range iters {
					start := time.Now()
					f()
					ds = append(ds, time.Since(start))
				}
				slices.Sort(ds)
				return ds[len(ds)/2]
			}
			nav := p50(func() { call("navigate_page", map[string]any{"url": page}) })
			var snap string
			snapT := p50(func() { snap = call("take_snapshot", nil) })
			t.Logf("%s snapshot:\n%s", backend.name, snap)
			greet := refFor(t, snap, "button", "Greet")
			click := p50(func() { call("click", map[string]any{"uid": greet}) })
			shot := p50(func() { call("take_screenshot", nil) })
			t.Logf("%s: navigate p50 %v, snapshot p50 %v (%d chars), click p50 %v, screenshot p50 %v (n=%d)",
				backend.name, nav.Round(100*time.Microsecond), snapT.Round(100*time.Microsecond), len(snap),
				click.Round(100*time.Microsecond), shot.Round(100*time.Microsecond), iters)
		})
	}
}
