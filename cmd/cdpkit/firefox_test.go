package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// startFirefoxMCP starts `cdpkit mcp --tools full` with env and args, with
// its own TMPDIR (where Firefox's throwaway profile goes), and checks on
// cleanup that no process of it is left.
func startFirefoxMCP(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	tmp := t.TempDir()
	cmd := exec.Command(binary, append([]string{"mcp", "--tools", "full"}, args...)...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts")), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-test", Version: "0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to cdpkit mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	c := &child{cmd: cmd, tmp: tmp, session: session}
	t.Cleanup(func() {
		session.Close()
		browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
		if left, _ := filepath.Glob(filepath.Join(tmp, "cdpkit-firefox-*")); len(left) > 0 {
			t.Errorf("firefox profiles left behind: %v", left)
		}
		if t.Failed() {
			t.Logf("cdpkit stderr:\n%s", stderr.String())
		}
	})
	return c
}

func listed(t *testing.T, c *child) []string {
	t.Helper()
	res, err := c.session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func toolNames(list []tools.Tool) []string {
	var names []string
	for _, t := range list {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

// TestBrowserFlagAndEnv checks --browser and CDPKIT_BROWSER (the flag wins)
// through tools/list, which starts no browser: under Firefox it is
// exactly the tools the capability table says Firefox can run.
func TestBrowserFlagAndEnv(t *testing.T) {
	t.Parallel()
	firefoxTools := toolNames(tools.ForBackend(tools.All(), tools.BackendFirefox))
	allTools := toolNames(tools.All())
	if len(firefoxTools) == 0 || len(firefoxTools) >= len(allTools) {
		t.Fatalf("firefox offers %d of %d tools; want some, not all", len(firefoxTools), len(allTools))
	}
	tests := []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"flag", nil, []string{"--browser", "firefox"}, firefoxTools},
		{"env", []string{"CDPKIT_BROWSER=firefox"}, nil, firefoxTools},
		{"flag wins", []string{"CDPKIT_BROWSER=firefox"}, []string{"--browser", "chromium"}, allTools},
		{"default", []string{"CDPKIT_BROWSER="}, nil, allTools},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := startFirefoxMCP(t, tt.env, tt.args...)
			if got := listed(t, c); !slices.Equal(got, tt.want) {
				t.Errorf("tools/list:\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestBrowserFlagRejectsUnknown(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary, "mcp", "--browser", "safari").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "chromium or firefox") {
		t.Errorf("cdpkit mcp --browser safari: err %v, output %q; want a failure naming chromium or firefox", err, out)
	}
}

// TestFirefoxCoreLoop drives a real Firefox through the MCP server as an
// agent would: open → snapshot → fill → click → verify → screenshot →
// evaluate, with refs from the snapshot; then a tool Firefox lacks is not
// callable, and closing the server leaves no Firefox process or profile.
func TestFirefoxCoreLoop(t *testing.T) {
	t.Parallel()
	exe := browsertest.FirefoxPath(t)
	srv := browsertest.Server(t, os.DirFS("testdata"))
	c := startFirefoxMCP(t, []string{"FIREFOX_PATH=" + exe}, "--browser", "firefox", "--allow-eval")
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
		defer cancel()
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: protocol error: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s(%v): %s", name, args, text(t, res))
		}
		return res
	}
	// The first call launches Firefox, which is slow on a loaded machine.
	nav := string(data(t, call("navigate_page", map[string]any{"url": srv.URL + "/firefox_form.html", "timeout_ms": 120000})))
	if !strings.Contains(nav, `"title":"Greeter"`) {
		t.Errorf("navigate_page: %s", nav)
	}
	snap := text(t, call("take_snapshot", nil))
	name := refFor(t, snap, "textbox", "Name")
	greet := refFor(t, snap, "button", "Greet")
	call("fill", map[string]any{"uid": name, "value": "Ada"})
	clicked := string(data(t, call("click", map[string]any{"uid": greet})))
	if !strings.Contains(clicked, `"changes"`) {
		t.Errorf("click result has no changes section: %s", clicked)
	}
	call("wait_for", map[string]any{"text": []string{"Hello, Ada"}})
	shot := call("take_screenshot", nil)
	var img *mcp.ImageContent
	for _, ct := range shot.Content {
		if ic, ok := ct.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Errorf("take_screenshot: no PNG image content in %v", shot.Content)
	}
	ev := text(t, call("evaluate_script", map[string]any{"function": "() => document.getElementById('out').textContent"}))
	if !strings.Contains(ev, "Hello, Ada") {
		t.Errorf("evaluate_script: %s", ev)
	}
	// A partial capability fails before doing anything, naming the argument.
	res, err := c.session.CallTool(t.Context(), &mcp.CallToolParams{Name: "take_screenshot", Arguments: map[string]any{"format": "webp"}})
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "UNSUPPORTED") || !strings.Contains(text(t, res), "webp") {
		t.Errorf("take_screenshot format webp: err %v, result %v; want UNSUPPORTED naming webp", err, res)
	}
	// A tool Firefox lacks is not there to call.
	if res, err := c.session.CallTool(t.Context(), &mcp.CallToolParams{Name: "take_heapsnapshot"}); err == nil && !res.IsError {
		t.Errorf("take_heapsnapshot under firefox: got a result, want an unknown tool")
	}
}
