package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// Backend names, as the report's comparison table heads its columns.
const (
	backendChromium = "chromium"
	backendFirefox  = "firefox"
)

// backendRow is one figure measured on both backends, side by side.
type backendRow struct {
	Key    string             `json:"key"`
	Name   string             `json:"figure"`
	Unit   string             `json:"unit"`
	Values map[string]float64 `json:"values"` // by backend name
}

// backendsResult is what the backends stage measured, per backend, in the
// order of backendNames.
type backendsResult struct {
	navigate, snapshot, click, screenshot [2]latency
	sizes                                 [2][]snapshotSize
}

var backendNames = [2]string{backendChromium, backendFirefox}

// findFirefox returns the Firefox the backends stage drives: the -firefox
// flag, else $FIREFOX_PATH, else firefox-esr or firefox on PATH; "" if none.
func findFirefox(flagValue string) string {
	for _, p := range []string{flagValue, os.Getenv("FIREFOX_PATH")} {
		if p != "" {
			return p
		}
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// benchBackends runs `cdpkit mcp` once on Chromium and once with
// --browser firefox, side by side, and times the same calls on the same
// fixture pages in both, their calls taking turns so that the machine's
// load hits both alike: warm navigate_page, take_snapshot, click and a
// viewport take_screenshot; it also records each snapshot's size.
func benchBackends(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*backendsResult, error) {
	srv, err := serveFixtures()
	if err != nil {
		return nil, fmt.Errorf("serving the fixture pages: %w", err)
	}
	defer srv.Close()
	var cs [2]*child
	for i, name := range backendNames {
		tmp := filepath.Join(scratch, "backend-"+name)
		if err := os.MkdirAll(tmp, 0o700); err != nil {
			return nil, err
		}
		var extra []string
		if name == backendFirefox {
			extra = []string{"--browser", "firefox"}
		}
		c, err := startChild(ctx, log, cfg, tmp, "full", extra...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer c.Close()
		// The first call launches the browser; on a loaded machine a
		// launch may miss its bound, and the next call launches again.
		_, err = c.call(ctx, "new_page", map[string]any{"url": srv.URL + "/home.html"})
		if err != nil && strings.Contains(err.Error(), "NO_BROWSER") {
			log.Warn("the first launch failed; trying once more", "backend", name, "err", err)
			_, err = c.call(ctx, "new_page", map[string]any{"url": srv.URL + "/home.html"})
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, c.withStderr(err))
		}
		cs[i] = c
	}
	res := &backendsResult{}
	// each makes one op per backend from a call on a child.
	each := func(f func(c *child, ctx context.Context, i int) error) []op {
		ops := make([]op, len(cs))
		for k, c := range cs {
			ops[k] = func(ctx context.Context, i int) error {
				if err := f(c, ctx, i); err != nil {
					return fmt.Errorf("%s: %w", backendNames[k], c.withStderr(err))
				}
				return nil
			}
		}
		return ops
	}
	both := func(what string, dst *[2]latency, f func(c *child, ctx context.Context, i int) error) error {
		lat, err := measure(ctx, mcpWarmup, cfg.iters, each(f)...)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		dst[0], dst[1] = lat[0], lat[1]
		log.Info(what+" done", "chromium_p50_ms", dst[0].p(50).Milliseconds(), "firefox_p50_ms", dst[1].p(50).Milliseconds())
		return nil
	}
	if err := both("navigate_page", &res.navigate, func(c *child, ctx context.Context, i int) error {
		page := []string{"a.html", "b.html"}[i%2]
		out, err := c.call(ctx, "navigate_page", map[string]any{"url": srv.URL + "/" + page})
		if err == nil && !strings.HasPrefix(resultKey(out, "title"), "Bench page") {
			err = fmt.Errorf("navigate_page to %s: %s", page, out)
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := both("take_screenshot", &res.screenshot, (*child).screenshot); err != nil {
		return nil, err
	}
	for k, c := range cs {
		if res.sizes[k], err = c.snapshotSizes(ctx, srv.URL); err != nil {
			return nil, fmt.Errorf("%s: %w", backendNames[k], c.withStderr(err))
		}
	}
	for _, c := range cs {
		if _, err := c.call(ctx, "navigate_page", map[string]any{"url": srv.URL + "/pages/" + snapshotPage + ".html"}); err != nil {
			return nil, err
		}
	}
	if err := both("take_snapshot", &res.snapshot, func(c *child, ctx context.Context, _ int) error {
		_, err := c.call(ctx, "take_snapshot", nil)
		return err
	}); err != nil {
		return nil, err
	}
	var buttons [2]string
	for k, c := range cs {
		if _, err := c.call(ctx, "navigate_page", map[string]any{"url": srv.URL + "/pages/app.html"}); err != nil {
			return nil, err
		}
		snap, err := c.call(ctx, "take_snapshot", map[string]any{"interactive": true})
		if err != nil {
			return nil, err
		}
		if buttons[k] = refIn(snap, `button "Sign in"`); buttons[k] == "" {
			return nil, fmt.Errorf("%s: app.html snapshot lacks the login form:\n%s", backendNames[k], snap)
		}
	}
	if err := both("click", &res.click, func(c *child, ctx context.Context, _ int) error {
		uid := buttons[0]
		if c == cs[1] {
			uid = buttons[1]
		}
		_, err := c.call(ctx, "click", map[string]any{"uid": uid})
		return err
	}); err != nil {
		return nil, err
	}
	return res, nil
}

// snapshotSizes records the size of each of snapshotPages' snapshots, in
// both modes, as an agent gets them.
func (c *child) snapshotSizes(ctx context.Context, baseURL string) ([]snapshotSize, error) {
	var sizes []snapshotSize
	for _, page := range snapshotPages {
		if _, err := c.call(ctx, "navigate_page", map[string]any{"url": baseURL + "/pages/" + page + ".html"}); err != nil {
			return nil, fmt.Errorf("navigate_page to %s: %w", page, err)
		}
		sz := snapshotSize{page: page}
		for _, interactive := range []bool{false, true} {
			out, err := c.call(ctx, "take_snapshot", map[string]any{"interactive": interactive})
			if err != nil {
				return nil, fmt.Errorf("take_snapshot of %s: %w", page, err)
			}
			n := utf8.RuneCountInString(resultBody(out))
			if interactive {
				sz.interactive = n
			} else {
				sz.chars = n
				sz.truncated = resultKey(out, "truncated") == "true"
			}
		}
		sizes = append(sizes, sz)
	}
	return sizes, nil
}

// addBackendFigures lays out the backends stage as rows with a value per
// backend.
func (r *report) addBackendFigures(b *backendsResult) {
	row := func(key, name, unit string, v func(k int) float64) {
		r.Backends = append(r.Backends, backendRow{Key: key, Name: name, Unit: unit,
			Values: map[string]float64{backendChromium: round(v(0), unit), backendFirefox: round(v(1), unit)}})
	}
	millis := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	for _, t := range []struct {
		key, name string
		lat       *[2]latency
	}{
		{"navigate_page", "navigate_page (loopback)", &b.navigate},
		{"take_snapshot", "take_snapshot (" + snapshotPage + ".html)", &b.snapshot},
		{"click", "click (app.html Sign in, with changes)", &b.click},
		{"take_screenshot", "take_screenshot (viewport, png)", &b.screenshot},
	} {
		for _, p := range []int{50, 95} {
			row(fmt.Sprintf("%s.p%d", t.key, p), fmt.Sprintf("%s p%d", t.name, p), unitMillis, func(k int) float64 { return millis(t.lat[k].p(p)) })
		}
	}
	for i, sz := range b.sizes[0] {
		row("snapshot."+sz.page+".chars", "snapshot size: "+sz.page+".html", unitChars, func(k int) float64 { return float64(b.sizes[k][i].chars) })
		row("snapshot."+sz.page+".interactive_chars", "snapshot size: "+sz.page+".html, interactive", unitChars, func(k int) float64 { return float64(b.sizes[k][i].interactive) })
	}
}

// writeBackends prints the backends table, or why it is missing.
func (r *report) writeBackends(w io.Writer) {
	if r.BackendsSkipped != "" {
		fmt.Fprintf(w, "\nFirefox figures skipped: %s\n", r.BackendsSkipped)
		return
	}
	if len(r.Backends) == 0 {
		return
	}
	fmt.Fprintf(w, "\nChromium and Firefox (%s) through `cdpkit mcp` and `cdpkit mcp --browser firefox`, side by side, calls taking turns:\n\n", r.Firefox)
	fmt.Fprintln(w, "| figure | Chromium | Firefox | unit |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for _, b := range r.Backends {
		c := format(figure{Value: b.Values[backendChromium], Unit: b.Unit})
		f := format(figure{Value: b.Values[backendFirefox], Unit: b.Unit})
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", b.Name, c, f, b.Unit)
	}
}

// runBackends adds the backends stage to rep, or the reason it was
// skipped: no Firefox is no error, so that `make bench` runs without one.
func runBackends(ctx context.Context, log *slog.Logger, cfg *config, scratch string, rep *report) error {
	if cfg.firefox == "" {
		rep.BackendsSkipped = "no Firefox found (-firefox, $FIREFOX_PATH, firefox-esr or firefox on PATH); install firefox-esr (scripts/install-deps.sh) for them"
		log.Warn("skipping the Firefox figures", "why", rep.BackendsSkipped)
		return nil
	}
	rep.Firefox = chromiumVersion(ctx, cfg.firefox)
	log.Info("Chromium and Firefox side by side", "firefox", cfg.firefox, "version", rep.Firefox)
	b, err := benchBackends(ctx, log, cfg, scratch)
	if err != nil {
		return err
	}
	rep.addBackendFigures(b)
	return nil
}

// runBackendsOnly is `bench -backends`: the backends stage alone, printed.
func runBackendsOnly(ctx context.Context, log *slog.Logger, cfg *config, stdout io.Writer) error {
	scratch, err := newScratch()
	if err != nil {
		return fmt.Errorf("creating the scratch directory: %w", err)
	}
	defer removeScratch(log, scratch)
	if err := os.Setenv("TMPDIR", scratch); err != nil {
		return err
	}
	rep := &report{Date: time.Now().UTC(), NProc: runtime.NumCPU(), Chromium: chromiumVersion(ctx, cfg.chromium), Go: runtime.Version(), Iters: cfg.iters}
	load := sysproc.LoadAverage()
	if err := runBackends(ctx, log, cfg, scratch, rep); err != nil {
		return err
	}
	rep.Load = []float64{load, sysproc.LoadAverage()}
	rep.writeMarkdown(stdout)
	return nil
}
