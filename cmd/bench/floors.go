package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// The floors stage answers "how much does a tool add above the CDP work it
// cannot avoid?". One Chromium runs with remote debugging; `cdpkit mcp`
// attaches to it (--ws-endpoint) and the bench attaches to it too, over a
// websocket of its own, and drives cdpkit's tab through a second session
// with the bare CDP each tool's job needs. Tool call and floor take turns,
// so the machine's load hits both alike; the overhead is the difference of
// their medians.

// floorPair is one tool and its floor, timed in turns.
type floorPair struct {
	key, name string // figure key and the tool's description
	floor     string // what the floor does
	tool      latency
	raw       latency
}

// floorsResult is what the floors stage measured.
type floorsResult struct {
	pairs []floorPair
}

// benchFloors runs the floors stage.
func benchFloors(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*floorsResult, error) {
	srv, err := serveFixtures()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	dir := filepath.Join(scratch, "floors-profile")
	db, err := startDebugBrowser(ctx, cfg.chromium, dir, "--window-size=1280,720")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ws, err := activeWebSocket(dir)
	if err != nil {
		return nil, err
	}

	cmd := exec.Command(cfg.cdpkit, "mcp", "--tools", "full", "--ws-endpoint", ws)
	sysproc.SetGroup(cmd, syscall.SIGTERM)
	tail := &sysproc.Tail{Max: 8 << 10}
	cmd.Stderr = tail
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-bench-floors", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to cdpkit mcp: %w; stderr: %s", err, tail)
	}
	defer session.Close()
	c := &child{session: session, stderr: tail, log: log}

	b, err := browser.Start(ctx, &browser.Options{AutoConnect: dir, Logger: log})
	if err != nil {
		return nil, err
	}
	defer b.Close() // only disconnects; db.Close stops the browser
	base := srv.URL
	if _, err := c.call(ctx, "new_page", map[string]any{"url": base + "/pages/app.html"}); err != nil {
		return nil, err
	}
	// The floors run on cdpkit's own tab, through a second session: a tab
	// of the bench's would be in the background, where nothing paints.
	tab, err := b.Resolve(ctx, "url:/pages/app.html")
	if err != nil {
		return nil, err
	}
	s, err := rawcdp.Session(ctx, tab)
	if err != nil {
		return nil, err
	}
	res := &floorsResult{}
	iters := cfg.iters

	// navigate: Page.navigate, then the load event.
	nav := floorPair{key: "navigate_page", name: "navigate_page (loopback)", floor: "Page.navigate → load event"}
	pages := []string{"a.html", "b.html"}
	lat, err := measure(ctx, mcpWarmup, iters,
		func(ctx context.Context, i int) error {
			_, err := c.call(ctx, "navigate_page", map[string]any{"url": base + "/" + pages[i%2]})
			return err
		},
		func(ctx context.Context, i int) error { return floorNavigate(ctx, s, base+"/"+pages[i%2]) })
	if err != nil {
		return nil, fmt.Errorf("navigate floor: %w", err)
	}
	nav.tool, nav.raw = lat[0], lat[1]
	res.pairs = append(res.pairs, nav)

	// snapshot of list.html: one Accessibility.getFullAXTree.
	if _, err := c.call(ctx, "navigate_page", map[string]any{"url": base + "/pages/" + snapshotPage + ".html"}); err != nil {
		return nil, err
	}
	if err := floorNavigate(ctx, s, base+"/pages/"+snapshotPage+".html"); err != nil {
		return nil, err
	}
	lat, err = measure(ctx, mcpWarmup, iters,
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "take_snapshot", nil)
			return err
		},
		func(ctx context.Context, _ int) error {
			_, err := cdpapi.Call(ctx, s, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("snapshot floor: %w", err)
	}
	res.pairs = append(res.pairs, floorPair{key: "take_snapshot", name: "take_snapshot (" + snapshotPage + ".html)", floor: "Accessibility.getFullAXTree", tool: lat[0], raw: lat[1]})

	// screenshot of the viewport, in the tool's default format, against
	// the same capture the tool asks for: png with optimizeForSpeed.
	fastPNG := true
	lat, err = measure(ctx, mcpWarmup, iters,
		func(ctx context.Context, _ int) error {
			_, err := c.callResult(ctx, "take_screenshot", nil)
			return err
		},
		func(ctx context.Context, _ int) error {
			_, err := cdpapi.Call(ctx, s, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: &fastPNG})
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("screenshot floor: %w", err)
	}
	res.pairs = append(res.pairs, floorPair{key: "take_screenshot", name: "take_screenshot (viewport, default)", floor: "one Page.captureScreenshot (png, optimizeForSpeed)", tool: lat[0], raw: lat[1]})

	// Actions on app.html's login form.
	if _, err := c.call(ctx, "navigate_page", map[string]any{"url": base + "/pages/app.html"}); err != nil {
		return nil, err
	}
	if err := floorNavigate(ctx, s, base+"/pages/app.html"); err != nil {
		return nil, err
	}
	snap, err := c.call(ctx, "take_snapshot", map[string]any{"interactive": true})
	if err != nil {
		return nil, err
	}
	user, button := refIn(snap, `textbox "Username"`), refIn(snap, `button "Sign in"`)
	if user == "" || button == "" {
		return nil, fmt.Errorf("app.html snapshot lacks the login form:\n%s", snap)
	}
	var pt struct{ X, Y float64 }
	if err := floorEval(ctx, s, `(() => { const r = document.querySelector('button').getBoundingClientRect(); return {X: r.x + r.width/2, Y: r.y + r.height/2}; })()`, &pt); err != nil {
		return nil, err
	}
	lat, err = measure(ctx, mcpWarmup, iters,
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "click", map[string]any{"uid": button})
			return err
		},
		func(ctx context.Context, _ int) error { return floorClick(ctx, s, pt.X, pt.Y) },
		func(ctx context.Context, i int) error {
			_, err := c.call(ctx, "fill", map[string]any{"uid": user, "value": fmt.Sprintf("user%d", i)})
			return err
		},
		func(ctx context.Context, i int) error {
			return floorEval(ctx, s, fmt.Sprintf(`(() => { const e = document.getElementById('user'); e.focus();
				Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(e, %q);
				e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); })()`, fmt.Sprintf("user%d", i)), nil)
		},
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "press_key", map[string]any{"key": "Tab"})
			return err
		},
		func(ctx context.Context, _ int) error { return floorKey(ctx, s, "Tab") })
	if err != nil {
		return nil, fmt.Errorf("action floors: %w", err)
	}
	res.pairs = append(res.pairs,
		floorPair{key: "click", name: "click (app.html)", floor: "three mouse events and one frame", tool: lat[0], raw: lat[1]},
		floorPair{key: "fill", name: "fill (app.html)", floor: "value set and its input/change events", tool: lat[2], raw: lat[3]},
		floorPair{key: "press_key", name: "press_key Tab (app.html)", floor: "keyDown and keyUp", tool: lat[4], raw: lat[5]})
	for _, p := range res.pairs {
		log.Info("floor", "tool", p.key, "tool_p50_ms", ms(p.tool.p(50)), "floor_p50_ms", ms(p.raw.p(50)))
	}
	return res, nil
}

// floorNavigate navigates s's page to url and waits for its load event.
func floorNavigate(ctx context.Context, s *cdp.Session, url string) error {
	loaded, stop := s.SubscribeEvents("Page.loadEventFired")
	defer stop()
	if _, err := cdpapi.Call(ctx, s, page.Navigate, page.NavigateParams{URL: url}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	select {
	case <-loaded:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// floorClick sends the three mouse events of a click at (x, y), then waits
// for one animation frame.
func floorClick(ctx context.Context, s *cdp.Session, x, y float64) error {
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
		if typ != input.DispatchMouseEventTypeMouseMoved {
			p.Button, p.ClickCount = input.MouseButtonLeft, 1
		}
		if _, err := cdpapi.Call(ctx, s, input.DispatchMouseEvent, p); err != nil {
			return err
		}
	}
	return floorEval(ctx, s, `new Promise(r => requestAnimationFrame(() => r()))`, nil)
}

// floorKey sends keyDown and keyUp of a key without text, such as Tab.
func floorKey(ctx context.Context, s *cdp.Session, key string) error {
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
		p := input.DispatchKeyEventParams{Type: typ, Key: key, Code: key, WindowsVirtualKeyCode: 9}
		if _, err := cdpapi.Call(ctx, s, input.DispatchKeyEvent, p); err != nil {
			return err
		}
	}
	return nil
}

// floorEval evaluates expr, awaiting a promise, into out when non-nil.
func floorEval(ctx context.Context, s *cdp.Session, expr string, out any) error {
	yes := true
	r, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, AwaitPromise: &yes, ReturnByValue: &yes})
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %q: %s", expr, r.ExceptionDetails.Text)
	}
	if out != nil && r.Result != nil {
		return json.Unmarshal([]byte(r.Result.Value), out)
	}
	return nil
}

// addFloorFigures lays out each tool's p50 next to its floor's and the
// overhead between them.
func (r *report) addFloorFigures(f *floorsResult) {
	for _, p := range f.pairs {
		r.addMillis("floor."+p.key+".tool.p50", "floors: "+p.name+" p50, cdpkit attached over a websocket", p.tool.p(50))
		r.addMillis("floor."+p.key+".raw.p50", "floors: "+p.name+" floor ("+p.floor+") p50", p.raw.p(50))
		r.addMillis("floor."+p.key+".overhead", "floors: "+p.name+" overhead above its floor (p50 − p50)", p.tool.p(50)-p.raw.p(50))
	}
}

// runFloors runs only the floors stage and prints its table.
func runFloors(ctx context.Context, log *slog.Logger, cfg *config, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	scratch, err := newScratch()
	if err != nil {
		return err
	}
	defer removeScratch(log, scratch)
	load := sysproc.LoadAverage()
	f, err := benchFloors(ctx, log, cfg, scratch)
	if err != nil {
		return err
	}
	rep := &report{Date: time.Now().UTC(), NProc: goruntime.NumCPU(), Iters: cfg.iters, Load: []float64{load, sysproc.LoadAverage()}}
	rep.addFloorFigures(f)
	rep.writeMarkdown(w)
	return nil
}
