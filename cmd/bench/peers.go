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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// The peers, pinned: `make bench-peers` installs exactly these with npm
// (scripts/install-peers.sh), and the bench refuses any other version so
// that a results file always names what it measured.
const (
	playwrightMCPVersion     = "0.0.83"
	chromeDevtoolsMCPVersion = "1.11.0"
)

// Server names, as the tables and the JSON show them.
const (
	nameCdpkit     = "cdpkit"
	namePlaywright = "playwright-mcp"
	nameDevtools   = "chrome-devtools-mcp"
)

// viewport is the window every server's browser gets, cdpkit's default, so
// that screenshots encode the same number of pixels.
const viewportW, viewportH = 1280, 720

// quietFlags keep every browser off the network beyond loopback. Root needs
// --no-sandbox.
var quietFlags = []string{
	"--no-sandbox",
	"--disable-background-networking",
	"--disable-component-update",
	"--no-first-run",
	"--disable-sync",
}

// peerPages are the shared fixture pages whose snapshot sizes are compared.
var peerPages = []string{"form", "list", "landmarks", "app", "big"}

// launcher describes how to start one server: its command line given the
// per-server scratch directory.
type launcher struct {
	name    string
	version string
	command func(tmp string) (*exec.Cmd, error)
}

// peerLaunchers returns cdpkit and the two peers installed under dir (the
// npm prefix of scripts/install-peers.sh), after checking their versions.
func peerLaunchers(cfg *config, dir string) ([]launcher, error) {
	for _, p := range []struct{ pkg, want string }{
		{"@playwright/mcp", playwrightMCPVersion},
		{"chrome-devtools-mcp", chromeDevtoolsMCPVersion},
	} {
		got, err := installedVersion(dir, p.pkg)
		if err != nil {
			return nil, fmt.Errorf("%w (run `make bench-peers`, which installs the peers)", err)
		}
		if got != p.want {
			return nil, fmt.Errorf("%s %s is installed under %s, want %s (run scripts/install-peers.sh %s)", p.pkg, got, dir, p.want, dir)
		}
	}
	args := append([]string{fmt.Sprintf("--window-size=%d,%d", viewportW, viewportH)}, quietFlags...)
	bin := func(name string) string { return filepath.Join(dir, "node_modules", ".bin", name) }
	return []launcher{
		{name: nameCdpkit, command: func(tmp string) (*exec.Cmd, error) {
			cmd := exec.Command(cfg.cdpkit, "mcp")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+cfg.chromium)
			return cmd, nil
		}},
		{name: namePlaywright, version: playwrightMCPVersion, command: func(tmp string) (*exec.Cmd, error) {
			// Browser arguments go only through a config file.
			conf := map[string]any{"browser": map[string]any{
				"browserName": "chromium",
				"isolated":    true,
				"launchOptions": map[string]any{
					"executablePath":  cfg.chromium,
					"headless":        true,
					"chromiumSandbox": false,
					"args":            args,
				},
				"contextOptions": map[string]any{"viewport": map[string]int{"width": viewportW, "height": viewportH}},
			}}
			b, err := json.Marshal(conf)
			if err != nil {
				return nil, err
			}
			path := filepath.Join(tmp, "playwright-mcp.json")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				return nil, err
			}
			cmd := exec.Command(bin("playwright-mcp"), "--config", path, "--headless", "--isolated",
				"--executable-path", cfg.chromium, "--no-sandbox", "--output-dir", filepath.Join(tmp, "out"),
				"--viewport-size", fmt.Sprintf("%dx%d", viewportW, viewportH))
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
			cmd.Dir = tmp
			return cmd, nil
		}},
		{name: nameDevtools, version: chromeDevtoolsMCPVersion, command: func(tmp string) (*exec.Cmd, error) {
			a := []string{"--headless", "--isolated", "--executablePath", cfg.chromium,
				"--viewport", fmt.Sprintf("%dx%d", viewportW, viewportH)}
			for _, f := range args {
				a = append(a, "--chromeArg="+f)
			}
			cmd := exec.Command(bin("chrome-devtools-mcp"), a...)
			// The env form keeps the tool set the default one (a flag might not).
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1", "PUPPETEER_SKIP_DOWNLOAD=1")
			cmd.Dir = tmp
			return cmd, nil
		}},
	}, nil
}

// installedVersion reads the version of an npm package installed under dir.
func installedVersion(dir, pkg string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return "", fmt.Errorf("%s is not installed under %s", pkg, dir)
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("reading %s's package.json: %w", pkg, err)
	}
	return p.Version, nil
}

// server is one running MCP server driven through the scenarios, with its
// tools mapped onto the scenario's steps.
type server struct {
	name    string
	cmd     *exec.Cmd
	tmp     string // its TMPDIR and working directory; its browser's profile lives here
	session *mcp.ClientSession
	stderr  *sysproc.Tail
	log     *slog.Logger

	tools     map[string]*mcp.Tool
	listChars int      // tools/list's tools as JSON, in characters
	pageID    *float64 // set when its tools require a page id
	lastChars int      // the text characters of the last tool result

	// Tool names for the scenario's steps.
	navigate, snapshot, click, fill, pressKey, screenshot string
}

// startServer starts l's server in tmp, completes the MCP handshake, and
// maps its tools. On error nothing it started is left running.
func startServer(ctx context.Context, log *slog.Logger, l launcher, tmp string) (*server, error) {
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}
	cmd, err := l.command(tmp)
	if err != nil {
		return nil, err
	}
	sysproc.SetGroup(cmd, syscall.SIGTERM)
	s := &server{name: l.name, cmd: cmd, tmp: tmp, stderr: &sysproc.Tail{Max: 8 << 10}, log: log}
	cmd.Stderr = s.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-bench", Version: "0"}, nil)
	s.session, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}, nil)
	if err != nil {
		s.reap()
		return nil, s.withStderr(fmt.Errorf("connecting to %s: %w", l.name, err))
	}
	if err := s.mapTools(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close shuts the server down by closing its stdin, as a host does, then
// makes sure nothing it launched still runs.
func (s *server) Close() {
	if err := s.session.Close(); err != nil && !errors.Is(err, context.Canceled) {
		s.log.Debug("closing server", "server", s.name, "err", err)
	}
	s.reap()
}

// reap kills the server's process group and anything launched under its
// scratch directory (its browser) that outlives it.
func (s *server) reap() {
	if s.cmd.Process != nil {
		sysproc.KillGroup(s.cmd.Process.Pid)
	}
	if left := waitGone(s.tmp, 10*time.Second); len(left) > 0 {
		s.log.Warn("server left processes running; killing them", "server", s.name, "pids", left)
		killPIDs(left)
		waitGone(s.tmp, 5*time.Second)
	}
}

func (s *server) withStderr(err error) error {
	if t := s.stderr.String(); t != "" {
		return fmt.Errorf("%w\n%s stderr:\n%s", err, s.name, t)
	}
	return err
}

// mapTools reads tools/list and picks each step's tool by name. A server
// lacking a step's tool fails the run: a comparison with a hole is worse
// than none.
func (s *server) mapTools(ctx context.Context) error {
	tl, err := s.session.ListTools(ctx, nil)
	if err != nil {
		return s.withStderr(fmt.Errorf("%s tools/list: %w", s.name, err))
	}
	b, err := json.Marshal(tl.Tools)
	if err != nil {
		return err
	}
	s.listChars = utf8.RuneCount(b)
	s.tools = map[string]*mcp.Tool{}
	for _, t := range tl.Tools {
		s.tools[t.Name] = t
	}
	for _, step := range []struct {
		dst        *string
		candidates []string
	}{
		{&s.navigate, []string{"navigate_page", "browser_navigate"}},
		{&s.snapshot, []string{"take_snapshot", "browser_snapshot"}},
		{&s.click, []string{"click", "browser_click"}},
		{&s.fill, []string{"fill", "browser_type"}},
		{&s.pressKey, []string{"press_key", "browser_press_key"}},
		{&s.screenshot, []string{"take_screenshot", "browser_take_screenshot"}},
	} {
		for _, c := range step.candidates {
			if _, ok := s.tools[c]; ok {
				*step.dst = c
				break
			}
		}
		if *step.dst == "" {
			return fmt.Errorf("%s offers none of %v in its tools/list", s.name, step.candidates)
		}
	}
	return nil
}

// props returns a tool's input schema properties and required names.
func (s *server) props(tool string) (map[string]any, []string) {
	schema, _ := s.tools[tool].InputSchema.(map[string]any)
	p, _ := schema["properties"].(map[string]any)
	var req []string
	if r, ok := schema["required"].([]any); ok {
		for _, x := range r {
			if n, ok := x.(string); ok {
				req = append(req, n)
			}
		}
	}
	return p, req
}

// argName returns the first of names that tool's schema has, or fails.
func (s *server) argName(tool string, names ...string) (string, error) {
	p, _ := s.props(tool)
	for _, n := range names {
		if _, ok := p[n]; ok {
			return n, nil
		}
	}
	return "", fmt.Errorf("%s's %s takes none of the arguments %v", s.name, tool, names)
}

// call runs tool with args, filling in what the server's schema demands
// beyond them: its page id, and any other required argument's default.
func (s *server) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	p, req := s.props(tool)
	if _, ok := p["pageId"]; ok && s.pageID != nil {
		args["pageId"] = *s.pageID
	}
	for _, r := range req {
		if _, ok := args[r]; ok {
			continue
		}
		if def, ok := p[r].(map[string]any)["default"]; ok {
			args[r] = def
		}
	}
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, s.withStderr(fmt.Errorf("%s %s: %w", s.name, tool, err))
	}
	if res.IsError {
		return nil, fmt.Errorf("%s %s failed: %s", s.name, tool, allText(res))
	}
	s.lastChars = utf8.RuneCountInString(allText(res))
	return res, nil
}

// pageIDPattern finds the selected page's id in chrome-devtools-mcp's
// list_pages text ("1: http://… [selected]").
var pageIDPattern = regexp.MustCompile(`(?m)^\D*?(\d+):.*\[selected\]`)

// selectPage learns the page id of the selected page, for servers whose
// tools require one.
func (s *server) selectPage(ctx context.Context) error {
	p, req := s.props(s.navigate)
	if _, ok := p["pageId"]; !ok || !slices.Contains(req, "pageId") {
		return nil
	}
	if _, ok := s.tools["list_pages"]; !ok {
		return fmt.Errorf("%s requires a pageId but has no list_pages", s.name)
	}
	res, err := s.call(ctx, "list_pages", nil)
	if err != nil {
		return err
	}
	m := pageIDPattern.FindStringSubmatch(allText(res))
	if m == nil {
		return fmt.Errorf("%s list_pages names no selected page: %s", s.name, allText(res))
	}
	id, _ := strconv.ParseFloat(m[1], 64)
	s.pageID = &id
	return nil
}

// Navigate loads url in the current page.
func (s *server) Navigate(ctx context.Context, url string) error {
	if s.pageID == nil {
		if err := s.selectPage(ctx); err != nil {
			return err
		}
	}
	args := map[string]any{"url": url}
	if p, _ := s.props(s.navigate); p["type"] != nil {
		args["type"] = "url"
	}
	_, err := s.call(ctx, s.navigate, args)
	return err
}

// Snapshot returns the whole text of a snapshot of the current page, as an
// agent receives it.
func (s *server) Snapshot(ctx context.Context) (string, error) {
	res, err := s.call(ctx, s.snapshot, nil)
	if err != nil {
		return "", err
	}
	return allText(res), nil
}

// refArgs names the element ref (and, where the schema takes one, a
// human description of it) in a tool's arguments.
func (s *server) refArgs(tool, ref, description string) (map[string]any, error) {
	name, err := s.argName(tool, "uid", "ref", "target")
	if err != nil {
		return nil, err
	}
	args := map[string]any{name: ref}
	if p, _ := s.props(tool); p["element"] != nil {
		args["element"] = description
	}
	return args, nil
}

// Click clicks the element ref.
func (s *server) Click(ctx context.Context, ref string) error {
	args, err := s.refArgs(s.click, ref, "Sign in button")
	if err != nil {
		return err
	}
	_, err = s.call(ctx, s.click, args)
	return err
}

// Fill replaces the value of the text field ref.
func (s *server) Fill(ctx context.Context, ref, value string) error {
	args, err := s.refArgs(s.fill, ref, "Username textbox")
	if err != nil {
		return err
	}
	v, err := s.argName(s.fill, "value", "text")
	if err != nil {
		return err
	}
	args[v] = value
	_, err = s.call(ctx, s.fill, args)
	return err
}

// PressKey presses key in the focused element.
func (s *server) PressKey(ctx context.Context, key string) error {
	_, err := s.call(ctx, s.pressKey, map[string]any{"key": key})
	return err
}

// Screenshot takes a PNG of the viewport, or of the whole page, and checks
// that an image came back in the result.
func (s *server) Screenshot(ctx context.Context, fullPage bool) error {
	f, err := s.argName(s.screenshot, "format", "type")
	if err != nil {
		return err
	}
	args := map[string]any{f: "png"}
	if fullPage {
		args["fullPage"] = true
	}
	res, err := s.call(ctx, s.screenshot, args)
	if err != nil {
		return err
	}
	for _, ct := range res.Content {
		if img, ok := ct.(*mcp.ImageContent); ok && len(img.Data) > 0 {
			return nil
		}
	}
	return fmt.Errorf("%s %s returned no image: %s", s.name, s.screenshot, allText(res))
}

// Ref patterns of the three snapshot formats: Playwright's "[ref=e5]",
// chrome-devtools-mcp's "uid=1_5", cdpkit's leading "e5".
var (
	bracketRef = regexp.MustCompile(`\[ref=([^\]\s]+)\]`)
	uidRef     = regexp.MustCompile(`\buid=(\S+)`)
)

// refFor returns the ref of the first snapshot line naming role "name".
func refFor(snapshot, role, name string) string {
	needle := role + ` "` + name + `"`
	for _, l := range strings.Split(snapshot, "\n") {
		if !strings.Contains(l, needle) {
			continue
		}
		if m := bracketRef.FindStringSubmatch(l); m != nil {
			return m[1]
		}
		if m := uidRef.FindStringSubmatch(l); m != nil {
			return m[1]
		}
		return refIn(l, needle)
	}
	return ""
}

// allText joins a result's text contents: what the agent reads.
func allText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
