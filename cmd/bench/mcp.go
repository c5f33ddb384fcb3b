package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// snapshotPages are the shared fixture pages whose snapshot sizes are
// reported; snapshotPage is the one whose snapshot latency is timed.
var snapshotPages = []string{"form", "list", "landmarks", "big"}

const snapshotPage = "list"

// snapshotSize is the size of one page's snapshot text, as an agent gets
// it (the JSON header line excluded), in characters.
type snapshotSize struct {
	page               string
	chars, interactive int
	truncated          bool
}

// mcpWarmup calls of each tool precede the measured ones.
const mcpWarmup = 5

// The per-call overhead (list_pages against a ping and the raw
// Target.getTargets) is a difference of two sub-millisecond medians: it is
// measured after the other tools, on overheadSamples times -iters calls of
// each after overheadWarmup, so that it is the overhead of a running
// server. Measured in the first second after the browser's launch, as it
// was, it read 1.3 ms where the same server read 0.8 ms a few seconds
// later: the new browser was still busy. Each call costs about a
// millisecond.
const (
	overheadWarmup  = 100
	overheadSamples = 10
)

// toolTimeout bounds one tool call.
const toolTimeout = 60 * time.Second

// mcpResult is what the MCP stage measured.
type mcpResult struct {
	serverVersion  string
	initialize     time.Duration // process start → initialize answered
	coldStart      time.Duration // process start → first new_page answered
	coldSnapshot   time.Duration // process start → first take_snapshot answered, after that new_page
	toolsListChars int           // characters in the JSON of tools/list's tools, full profile
	coreListChars  int           // the same for the default core profile
	ping           latency       // MCP ping: stdio and SDK, no tool, no browser
	listPages      latency
	navigate       latency
	screenshot     latency // viewport
	screenshotFull latency // full page
	snapshot       latency // take_snapshot of snapshotPage, default mode
	snapshotI      latency // the same, interactive
	snapshotSizes  []snapshotSize
	click          latency // click on app.html's Sign in (fails login, stays)
	fill           latency
	pressKey       latency
	changesChars   int            // the whole text of the first such click's result
	cdpkitRSS      int64          // the cdpkit process, idle with a browser open
	chromium       sysproc.Memory // the browser cdpkit launched
}

// benchMCP runs `cdpkit mcp` as an agent would and measures it.
func benchMCP(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*mcpResult, error) {
	srv, err := serveFixtures()
	if err != nil {
		return nil, fmt.Errorf("serving the fixture pages: %w", err)
	}
	// Deferred first so that it runs last: the browser is gone by then and
	// no request is in flight.
	defer srv.Close()
	tmp := filepath.Join(scratch, "mcp-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}

	res := &mcpResult{}
	start := time.Now()
	c, err := startChild(ctx, log, cfg, tmp, "full")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res.initialize = time.Since(start)
	if info := c.session.InitializeResult(); info != nil && info.ServerInfo != nil {
		res.serverVersion = info.ServerInfo.Version
	}
	out, err := c.call(ctx, "new_page", map[string]any{"url": srv.URL + "/home.html"})
	if err != nil {
		return nil, c.withStderr(err)
	}
	res.coldStart = time.Since(start)
	if resultKey(out, "title") != "Bench home" || resultKey(out, "status") != "200" {
		return nil, fmt.Errorf("new_page did not load the fixture page: %s", out)
	}
	if out, err = c.call(ctx, "take_snapshot", nil); err != nil {
		return nil, c.withStderr(err)
	}
	res.coldSnapshot = time.Since(start)
	if !strings.Contains(out, "cdpkit bench") {
		return nil, fmt.Errorf("the first snapshot lacks the home page's heading: %s", out)
	}
	log.Info("cold start done", "initialize_ms", res.initialize.Milliseconds(), "cold_start_ms", res.coldStart.Milliseconds(), "first_snapshot_ms", res.coldSnapshot.Milliseconds())

	if res.toolsListChars, err = c.toolsListChars(ctx); err != nil {
		return nil, c.withStderr(err)
	}
	// tools/list starts no browser, so a second cdpkit for the default
	// profile costs only its start.
	// Its own TMPDIR: reaping it must not touch the first child's browser.
	coreTmp := filepath.Join(scratch, "mcp-core-tmp")
	if err := os.MkdirAll(coreTmp, 0o700); err != nil {
		return nil, err
	}
	core, err := startChild(ctx, log, cfg, coreTmp, "core")
	if err != nil {
		return nil, err
	}
	res.coreListChars, err = core.toolsListChars(ctx)
	core.Close()
	if err != nil {
		return nil, err
	}
	if err := c.warm(ctx, log, cfg.iters, srv.URL, res); err != nil {
		return nil, c.withStderr(err)
	}

	// Let the browser settle after the last capture before reading memory.
	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := c.memory(res); err != nil {
		return nil, err
	}
	return res, nil
}

// child is one `cdpkit mcp` process, with its own TMPDIR so that its
// browser's profile, and so its processes, can be told apart from anyone
// else's.
type child struct {
	cmd     *exec.Cmd
	tmp     string
	session *mcp.ClientSession
	stderr  *sysproc.Tail
	log     *slog.Logger
}

// startChild starts `cdpkit mcp` and completes the MCP handshake. On error
// nothing it started is left running.
// extra are more flags for `cdpkit mcp`.
func startChild(ctx context.Context, log *slog.Logger, cfg *config, tmp string, profile string, extra ...string) (*child, error) {
	cmd := exec.Command(cfg.cdpkit, append([]string{"mcp", "--tools", profile}, extra...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+cfg.chromium)
	if cfg.firefox != "" {
		cmd.Env = append(cmd.Env, "FIREFOX_PATH="+cfg.firefox)
	}
	// Keep a terminal's Ctrl-C to the bench, which then shuts cdpkit down
	// the way a client should: by closing its stdin. If the bench dies
	// without closing, stop cdpkit politely; it then stops its browser.
	sysproc.SetGroup(cmd, syscall.SIGTERM)
	c := &child{cmd: cmd, tmp: tmp, stderr: &sysproc.Tail{Max: 8 << 10}, log: log}
	cmd.Stderr = c.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-bench", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		// Connect has already closed the transport and reaped cdpkit on
		// its failure paths; reap whatever it may have launched.
		c.reapStragglers()
		return nil, c.withStderr(fmt.Errorf("connecting to cdpkit mcp: %w", err))
	}
	c.session = session
	return c, nil
}

// Close shuts cdpkit down by closing its stdin (escalating to SIGTERM and
// SIGKILL if it lingers), then makes sure its browser is gone too.
func (c *child) Close() {
	if err := c.session.Close(); err != nil && !errors.Is(err, context.Canceled) {
		c.log.Warn("closing cdpkit mcp", "err", err)
	}
	c.reapStragglers()
}

// reapStragglers waits for every process launched under c.tmp to exit, and
// kills any that have not within a few seconds: a browser cdpkit should
// have stopped.
func (c *child) reapStragglers() {
	if left := waitGone(c.tmp, 10*time.Second); len(left) > 0 {
		c.log.Warn("cdpkit left browser processes running; killing them", "pids", left)
		killPIDs(left)
		waitGone(c.tmp, 5*time.Second)
	}
}

// call runs a tool and returns its text; a tool error is an error here.
func (c *child) call(ctx context.Context, name string, args map[string]any) (string, error) {
	res, err := c.callResult(ctx, name, args)
	if err != nil {
		return "", err
	}
	return firstText(res), nil
}

func (c *child) callResult(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s failed: %s", name, firstText(res))
	}
	return res, nil
}

// screenshot takes a viewport PNG of the active tab and checks that an
// image came back.
func (c *child) screenshot(ctx context.Context, _ int) error {
	return c.capture(ctx, map[string]any{"format": "png"})
}

// screenshotFull takes a full-page PNG of the active tab.
func (c *child) screenshotFull(ctx context.Context, _ int) error {
	return c.capture(ctx, map[string]any{"format": "png", "fullPage": true})
}

func (c *child) capture(ctx context.Context, args map[string]any) error {
	res, err := c.callResult(ctx, "take_screenshot", args)
	if err != nil {
		return err
	}
	for _, ct := range res.Content {
		if img, ok := ct.(*mcp.ImageContent); ok && img.MIMEType == "image/png" && len(img.Data) > 0 {
			return nil
		}
	}
	return fmt.Errorf("take_screenshot returned no PNG: %s", firstText(res))
}

// withStderr adds the end of cdpkit's stderr to err, for diagnosis.
func (c *child) withStderr(err error) error {
	if s := c.stderr.String(); s != "" {
		return fmt.Errorf("%w\ncdpkit stderr:\n%s", err, s)
	}
	return err
}

// toolsListChars returns the size of tools/list's tools as JSON, in
// characters: what an agent pays in context to learn the tools.
func (c *child) toolsListChars(ctx context.Context) (int, error) {
	tl, err := c.session.ListTools(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("tools/list: %w", err)
	}
	b, err := json.Marshal(tl.Tools)
	if err != nil {
		return 0, fmt.Errorf("encoding tools/list: %w", err)
	}
	return utf8.RuneCount(b), nil
}

// warm times tool calls on the running browser: navigate_page to the
// fixture server at baseURL, take_screenshot, take_snapshot and the
// actions, then list_pages interleaved with MCP pings, its transport
// floor, last (see overheadWarmup).
func (c *child) warm(ctx context.Context, log *slog.Logger, iters int, baseURL string, res *mcpResult) error {
	if err := c.tools(ctx, log, iters, baseURL, res); err != nil {
		return err
	}
	lat, err := measure(ctx, overheadWarmup, overheadSamples*iters,
		func(ctx context.Context, _ int) error { return c.session.Ping(ctx, nil) },
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "list_pages", nil)
			return err
		})
	if err != nil {
		return fmt.Errorf("ping and list_pages: %w", err)
	}
	res.ping, res.listPages = lat[0], lat[1]
	log.Info("list_pages done", "p50_us", res.listPages.p(50).Microseconds(), "ping_p50_us", res.ping.p(50).Microseconds())
	return nil
}

// tools times navigate_page, take_screenshot, take_snapshot and the
// actions.
func (c *child) tools(ctx context.Context, log *slog.Logger, iters int, baseURL string, res *mcpResult) error {
	lat, err := measure(ctx, mcpWarmup, iters, func(ctx context.Context, i int) error {
		// Alternate between two pages so each call is a real cross-document load.
		page := []string{"a.html", "b.html"}[i%2]
		out, err := c.call(ctx, "navigate_page", map[string]any{"url": baseURL + "/" + page})
		if err == nil && resultKey(out, "status") != "200" {
			err = fmt.Errorf("navigate_page to %s: %s", page, out)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("navigate_page: %w", err)
	}
	res.navigate = lat[0]
	log.Info("navigate_page done", "p50_ms", res.navigate.p(50).Milliseconds())

	lat, err = measure(ctx, mcpWarmup, iters, c.screenshot, c.screenshotFull)
	if err != nil {
		return fmt.Errorf("take_screenshot: %w", err)
	}
	res.screenshot, res.screenshotFull = lat[0], lat[1]
	log.Info("take_screenshot done", "p50_ms", res.screenshot.p(50).Milliseconds(), "full_page_p50_ms", res.screenshotFull.p(50).Milliseconds())
	return c.snapshots(ctx, log, iters, baseURL, res)
}

// snapshots records each fixture page's snapshot size in both modes, then
// times take_snapshot on snapshotPage, default and interactive alternating.
func (c *child) snapshots(ctx context.Context, log *slog.Logger, iters int, baseURL string, res *mcpResult) error {
	sizes, err := c.snapshotSizes(ctx, baseURL)
	if err != nil {
		return err
	}
	res.snapshotSizes = sizes
	if _, err := c.call(ctx, "navigate_page", map[string]any{"url": baseURL + "/pages/" + snapshotPage + ".html"}); err != nil {
		return err
	}
	lat, err := measure(ctx, mcpWarmup, iters,
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "take_snapshot", nil)
			return err
		},
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "take_snapshot", map[string]any{"interactive": true})
			return err
		})
	if err != nil {
		return fmt.Errorf("take_snapshot: %w", err)
	}
	res.snapshot, res.snapshotI = lat[0], lat[1]
	log.Info("take_snapshot done", "p50_us", res.snapshot.p(50).Microseconds())
	return c.actions(ctx, log, iters, baseURL, res)
}

// actions times click, fill and press_key on the app fixture's login
// form, and records the size of a click's changes section.
func (c *child) actions(ctx context.Context, log *slog.Logger, iters int, baseURL string, res *mcpResult) error {
	if _, err := c.call(ctx, "navigate_page", map[string]any{"url": baseURL + "/pages/app.html"}); err != nil {
		return err
	}
	snap, err := c.call(ctx, "take_snapshot", map[string]any{"interactive": true})
	if err != nil {
		return err
	}
	user, button := refIn(snap, `textbox "Username"`), refIn(snap, `button "Sign in"`)
	if user == "" || button == "" {
		return fmt.Errorf("app.html snapshot lacks the login form:\n%s", snap)
	}
	out, err := c.call(ctx, "click", map[string]any{"uid": button})
	if err != nil {
		return fmt.Errorf("click: %w", err)
	}
	// What the agent reads of a click: the result's whole text, its key
	// lines and the change lines.
	res.changesChars = utf8.RuneCountInString(out)
	lat, err := measure(ctx, mcpWarmup, iters,
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "click", map[string]any{"uid": button})
			return err
		},
		func(ctx context.Context, i int) error {
			_, err := c.call(ctx, "fill", map[string]any{"uid": user, "value": fmt.Sprintf("user%d", i)})
			return err
		},
		func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "press_key", map[string]any{"key": "Tab"})
			return err
		})
	if err != nil {
		return fmt.Errorf("click, fill and press_key: %w", err)
	}
	res.click, res.fill, res.pressKey = lat[0], lat[1], lat[2]
	log.Info("actions done", "click_p50_ms", res.click.p(50).Milliseconds())
	return nil
}

// refIn returns the ref of the first line containing needle, or "".
func refIn(text, needle string) string {
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, needle); i > 0 {
			if f := strings.Fields(l[:i]); len(f) > 0 {
				return f[len(f)-1]
			}
		}
	}
	return ""
}

// memory reads cdpkit's RSS and that of the browser it launched: every
// process whose command line names its profile, which lives in c.tmp.
func (c *child) memory(res *mcpResult) error {
	var err error
	if res.cdpkitRSS, err = sysproc.RSS(c.cmd.Process.Pid); err != nil {
		return fmt.Errorf("reading cdpkit's RSS: %w", err)
	}
	profiles, _ := filepath.Glob(filepath.Join(c.tmp, "cdpkit-profile-*"))
	if len(profiles) != 1 {
		return fmt.Errorf("want one cdpkit profile in %s, found %d", c.tmp, len(profiles))
	}
	res.chromium = memoryOf(profiles[0])
	if res.chromium.Procs == 0 {
		return fmt.Errorf("no browser process uses the profile %s", profiles[0])
	}
	return nil
}

func firstText(res *mcp.CallToolResult) string {
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// resultKey returns the value of a result text's `key: value` line, the
// lines before the first blank one; "" if there is none.
func resultKey(text, key string) string {
	head, _, _ := strings.Cut(text, "\n\n")
	for _, l := range strings.Split(head, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			return v
		}
	}
	return ""
}

// resultBody returns a result text's lines after its key lines: a
// snapshot's, as an agent reads it.
func resultBody(text string) string {
	_, body, _ := strings.Cut(text, "\n\n")
	return body
}
