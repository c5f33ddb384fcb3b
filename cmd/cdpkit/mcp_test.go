package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// binary is the cdpkit built once for this package's tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cdpkit-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "cdpkit")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building cdpkit: %v\n%s", err, out)
		os.Exit(1)
	}
	browsertest.Main(m, func() error { return os.RemoveAll(dir) })
}

// child is one `cdpkit mcp` process with its own TMPDIR, so its browser
// profile and processes can be told apart from other tests'.
type child struct {
	cmd     *exec.Cmd
	tmp     string
	session *mcp.ClientSession
}

func startMCP(t *testing.T, args ...string) *child {
	t.Helper()
	return startMCPEnv(t, nil, args...)
}

// startMCPEnv is startMCP with env ("KEY=value") added to the child's
// environment: what a test would otherwise set with t.Setenv, which would
// keep it out of the parallel phase.
func startMCPEnv(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	exe := browsertest.ExecPath(t)
	tmp := t.TempDir()
	// The tests exercise every tool, not only the default core profile.
	cmd := exec.Command(binary, append([]string{"mcp", "--tools", "full"}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+exe, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second // see waitExited
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-test", Version: "0"}, nil)
	// Closing waits for cdpkit to exit by itself before any signal (the
	// SDK's default is 5 s): shutting down may encode a screen recording,
	// which takes longer on a loaded machine (TestMCPShutdownSavesRecording).
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 90 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to cdpkit mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	c := &child{cmd: cmd, tmp: tmp, session: session}
	t.Cleanup(func() {
		session.Close()
		browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
		if t.Failed() {
			t.Logf("cdpkit stderr:\n%s", stderr.String())
		}
	})
	return c
}

// call runs a tool and returns its result; it fails the test on a protocol
// error, not on a tool error.
func (c *child) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// data is a result's structured content as JSON, which programs read.
func data(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("result has no content")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("first content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// profiles lists cdpkit profiles left in dir.
func profiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "cdpkit-profile-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMCPWalkingSkeleton(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, os.DirFS("testdata"))
	c := startMCP(t)

	tl, err := c.session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range tl.Tools {
		have[tool.Name] = true
	}
	for _, want := range []string{"list_pages", "navigate_page", "new_page", "take_screenshot", "take_snapshot", "find"} {
		if !have[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}

	res := c.call(t, "new_page", map[string]any{"url": srv.URL + "/hello.html"})
	if res.IsError {
		t.Fatalf("new_page failed: %s", text(t, res))
	}
	var nav struct {
		ID     string `json:"id"`
		URL    string `json:"url"`
		Title  string `json:"title"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal(data(t, res), &nav); err != nil {
		t.Fatal(err)
	}
	if nav.Title != "Hello cdpkit" || nav.Status != 200 || nav.URL != srv.URL+"/hello.html" || nav.ID == "" {
		t.Errorf("new_page = %+v, want title Hello cdpkit, status 200, url %s, an id", nav, srv.URL+"/hello.html")
	}

	res = c.call(t, "take_screenshot", map[string]any{"target": "title:Hello"})
	if res.IsError {
		t.Fatalf("take_screenshot failed: %s", text(t, res))
	}
	if len(res.Content) != 2 {
		t.Fatalf("take_screenshot returned %d contents, want text and image", len(res.Content))
	}
	img, ok := res.Content[1].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("second content = %#v, want an image/png", res.Content[1])
	}
	decoded, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("decoding the PNG: %v", err)
	}
	if r, g, b, _ := decoded.At(10, decoded.Bounds().Dy()-10).RGBA(); !(r>>8 == 0x22 && g>>8 == 0xaa && b>>8 == 0x66) {
		t.Errorf("pixel near the bottom = %02x%02x%02x, want the page background 22aa66", r>>8, g>>8, b>>8)
	}

	res = c.call(t, "list_pages", nil)
	if res.IsError || !strings.Contains(text(t, res), `title: Hello cdpkit`) {
		t.Errorf("list_pages = %s, want the Hello tab", text(t, res))
	}

	res = c.call(t, "take_snapshot", nil)
	got := text(t, res)
	header, body, _ := strings.Cut(got, "\n\n")
	if res.IsError || !strings.Contains(header, "title: Hello cdpkit") || !strings.Contains(body, `heading "Hello" level=1`) {
		t.Errorf("take_snapshot = %q, want key: value lines, a blank line and the heading", got)
	}

	res = c.call(t, "take_snapshot", map[string]any{"filePath": "snaps/hello.txt"})
	var saved struct{ Path string }
	if json.Unmarshal(data(t, res), &saved); !strings.HasPrefix(saved.Path, filepath.Join(c.tmp, "artifacts")) {
		t.Fatalf("take_snapshot filePath = %s, want a path in the artifact dir", text(t, res))
	}
	if b, err := os.ReadFile(saved.Path); err != nil || !strings.Contains(string(b), `heading "Hello"`) {
		t.Errorf("saved snapshot = %q, %v", b, err)
	}
}

func TestMCPErrors(t *testing.T) {
	t.Parallel()
	c := startMCP(t)
	tests := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"navigate_page", map[string]any{"url": "http://127.0.0.1:1/", "target": "index:9"}, "TARGET_NOT_FOUND"},
		{"navigate_page", map[string]any{"url": "http://127.0.0.1:1/", "target": "bogus:x"}, "INVALID_ARGS"},
		{"navigate_page", map[string]any{"url": "file:///etc/passwd"}, "URL_BLOCKED"},
		{"navigate_page", map[string]any{"url": "not a url"}, "INVALID_URL"},
		{"navigate_page", map[string]any{}, "INVALID_ARGS"},
		{"navigate_page", map[string]any{"url": "http://127.0.0.1:1/", "extra": true}, "INVALID_ARGS"},
		{"navigate_page", map[string]any{"url": "http://127.0.0.1:1/"}, "NAVIGATION_FAILED"},
		{"take_screenshot", map[string]any{"format": "gif"}, "INVALID_ARGS"},
		{"take_snapshot", map[string]any{"scope": "e999"}, "REF_NOT_FOUND"},
		{"take_snapshot", map[string]any{"scope": "#nope"}, "ELEMENT_NOT_FOUND"},
		{"take_snapshot", map[string]any{"scope": "[[["}, "INVALID_ARGS"},
		{"take_snapshot", map[string]any{"filePath": "../../etc/x"}, "UNSAFE_PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.code+"/"+tt.tool, func(t *testing.T) {
			res := c.call(t, tt.tool, tt.args)
			if !res.IsError {
				t.Fatalf("%s(%v) succeeded: %s", tt.tool, tt.args, text(t, res))
			}
			got := text(t, res)
			if !strings.HasPrefix(got, "["+tt.code+"] ") {
				t.Errorf("text = %q, want prefix [%s]", got, tt.code)
			}
			sc, _ := json.Marshal(res.StructuredContent)
			var e struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(sc, &e); e.Code != tt.code || e.Message == "" {
				t.Errorf("structured content = %s, want code %s and a message", sc, tt.code)
			}
		})
	}
}

// TestMCPConsole checks that a message the page logged while loading, before
// anything asked for the console, is listed.
func TestMCPConsole(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, os.DirFS("testdata"))
	c := startMCP(t)
	if res := c.call(t, "new_page", map[string]any{"url": srv.URL + "/hello.html"}); res.IsError {
		t.Fatalf("new_page failed: %s", text(t, res))
	}
	res := c.call(t, "list_console_messages", map[string]any{"types": []string{"log"}})
	got := text(t, res)
	header, body, _ := strings.Cut(got, "\n\n")
	if res.IsError || !strings.Contains(header, "total: 1") || !strings.Contains(body, "#1 log hello.html:7 hello from the page") {
		t.Errorf("list_console_messages = %q, want key: value lines and the page's message", got)
	}
}

// TestMCPExitPaths checks that every way cdpkit can end leaves no browser
// process and no temporary profile behind.
func TestMCPExitPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		stop func(c *child)
	}{
		{"stdin closed", func(c *child) { c.session.Close() }},
		{"SIGTERM", func(c *child) { c.cmd.Process.Signal(syscall.SIGTERM) }},
		{"SIGINT", func(c *child) { c.cmd.Process.Signal(syscall.SIGINT) }},
		{"SIGKILL", func(c *child) { c.cmd.Process.Kill() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := startMCP(t)
			if res := c.call(t, "list_pages", nil); res.IsError {
				t.Fatalf("list_pages: %s", text(t, res))
			}
			if len(browsertest.ProcessesMatching(c.tmp)) == 0 {
				t.Fatal("no browser process found after the first call")
			}
			tt.stop(c)
			done := make(chan struct{})
			go func() { c.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(browsertest.ProcWait):
				t.Fatalf("cdpkit did not exit within %v", browsertest.ProcWait)
			}
			browsertest.WaitNoProcesses(t, c.tmp, browsertest.ProcWait)
			if tt.name == "SIGKILL" {
				return // nobody could remove the profile; the next start sweeps it
			}
			if left := profiles(t, c.tmp); len(left) > 0 {
				t.Errorf("profiles left behind: %v", left)
			}
		})
	}
}

// TestSweepAfterKill checks that a cdpkit started after one was killed
// removes the profile the dead one left.
func TestSweepAfterKill(t *testing.T) {
	t.Parallel()
	first := startMCP(t)
	first.call(t, "list_pages", nil)
	first.cmd.Process.Kill()
	first.cmd.Wait()
	browsertest.WaitNoProcesses(t, first.tmp, browsertest.ProcWait)
	if len(profiles(t, first.tmp)) != 1 {
		t.Fatalf("want the killed cdpkit's profile left behind, got %v", profiles(t, first.tmp))
	}
	leftovers := func() []string {
		var names []string
		for _, pat := range []string{"cdpkit-profile-*", "cdpkit-tmp-*", "org.chromium.*"} {
			m, _ := filepath.Glob(filepath.Join(first.tmp, pat))
			names = append(names, m...)
		}
		return names
	}
	if m, _ := filepath.Glob(filepath.Join(first.tmp, "org.chromium.*")); len(m) > 0 {
		t.Errorf("Chromium scratch dirs outside cdpkit's own temp dir: %v", m)
	}

	cmd := exec.Command(binary, "mcp")
	cmd.Env = append(os.Environ(), "TMPDIR="+first.tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t))
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-test", Version: "0"}, nil)
	// Closing waits for cdpkit to exit by itself before any signal (the
	// SDK's default is 5 s): shutting down may encode a screen recording,
	// which takes longer on a loaded machine (TestMCPShutdownSavesRecording).
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 90 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The sweep happens at start, before any call needs a browser.
	if got := leftovers(); len(got) != 0 {
		t.Errorf("left by the killed cdpkit after the next one started = %v, want none", got)
	}
	if _, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_pages"}); err != nil {
		t.Fatal(err)
	}
	if got := profiles(t, first.tmp); len(got) != 1 {
		t.Errorf("profiles while the second cdpkit runs = %v, want only its own", got)
	}
	session.Close()
	browsertest.WaitNoProcesses(t, first.tmp, browsertest.ProcWait)
	if got := leftovers(); len(got) != 0 {
		t.Errorf("left after both exited = %v, want none", got)
	}
}
