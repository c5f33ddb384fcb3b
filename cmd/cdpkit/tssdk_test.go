package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// loadedToolTimeout bounds each tool call of the end-to-end tests that
// start a browser in their first call: generous, for a loaded CI machine.
const loadedToolTimeout = "90s"

// tsSDKVersion is the @modelcontextprotocol/sdk the TypeScript test uses,
// pinned so that a new release cannot change the test under us.
const tsSDKVersion = "1.32.2"

// tsSDK returns a directory holding the TypeScript MCP SDK (installed by
// npmPackage), and node's path. It skips the test when node is absent,
// unless CDPKIT_REQUIRE_BROWSER=1 (CI), where that is a failure.
func tsSDK(t *testing.T) (dir, node string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CDPKIT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("node is required (CDPKIT_REQUIRE_BROWSER=1): %v", err)
		}
		t.Skipf("node not found: %v", err)
	}
	pkg := npmPackage(t, "@modelcontextprotocol/sdk@"+tsSDKVersion)
	// The prefix npm installed into: node resolves the SDK from there.
	return filepath.Dir(filepath.Dir(filepath.Dir(pkg))), node
}

// tsPage serves a page whose button "Go" adds a link when clicked.
func tsPage(t *testing.T) string {
	t.Helper()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>TS SDK</title><body style="background:#48c">
<button onclick="let a = document.createElement('a'); a.href = '#done'; a.textContent = 'Done link'; document.body.append(a)">Go</button>`)
	}))
	return srv.URL + "/"
}

// tsResult is what testdata/tsclient.mjs prints.
type tsResult struct {
	Server       string   `json:"server"`
	Tools        []string `json:"tools"`
	Title        string   `json:"title"`
	Ref          string   `json:"ref"`
	ClickChanges string   `json:"clickChanges"`
	ImageType    string   `json:"imageType"`
	ImageBytes   int      `json:"imageBytes"`
	Error        string   `json:"error"`
}

// runTSClient runs testdata/tsclient.mjs with args and decodes its report.
func runTSClient(t *testing.T, env []string, args ...string) tsResult {
	t.Helper()
	dir, node := tsSDK(t)
	// Node resolves the SDK from the script's own directory.
	script, err := os.ReadFile(filepath.Join("testdata", "tsclient.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// One file per test: the stdio and HTTP tests run in parallel, and
	// each removes its own when it ends.
	f, err := os.CreateTemp(dir, "tsclient-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	path := f.Name()
	t.Cleanup(func() { os.Remove(path) })
	if _, err := f.Write(script); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{path}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node tsclient.mjs: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var res tsResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("decoding %q: %v\nstderr: %s", out, err, stderr.String())
	}
	if res.Error != "" {
		t.Fatalf("the TypeScript client failed: %s\nstderr: %s", res.Error, stderr.String())
	}
	return res
}

func checkTSResult(t *testing.T, got tsResult) {
	t.Helper()
	if got.Server != "cdpkit" {
		t.Errorf("server name %q, want cdpkit", got.Server)
	}
	for _, want := range []string{"navigate_page", "take_snapshot", "click", "take_screenshot"} {
		if !slices.Contains(got.Tools, want) {
			t.Errorf("tools/list lacks %s: %v", want, got.Tools)
		}
	}
	if got.Title != "TS SDK" {
		t.Errorf("navigate_page title %q, want TS SDK", got.Title)
	}
	if !strings.Contains(got.ClickChanges, "Done link") {
		t.Errorf("click changes %q do not show the link the click added", got.ClickChanges)
	}
	if got.ImageType != "image/png" || got.ImageBytes < 100 {
		t.Errorf("screenshot image %s of %d bytes, want a png", got.ImageType, got.ImageBytes)
	}
}

// TestTypeScriptSDKStdio drives `cdpkit mcp` with the official TypeScript
// SDK's Client over StdioClientTransport.
func TestTypeScriptSDKStdio(t *testing.T) {
	t.Parallel()
	tsSDK(t) // install (or skip) before starting anything
	page := tsPage(t)
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t),
		"CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"), "CDPKIT_TOOL_TIMEOUT="+loadedToolTimeout)
	checkTSResult(t, runTSClient(t, env, "stdio", binary, page))
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
}

// TestTypeScriptSDKHTTP drives `cdpkit serve` with the official TypeScript
// SDK's Client over StreamableHTTPClientTransport, with the bearer token.
func TestTypeScriptSDKHTTP(t *testing.T) {
	t.Parallel()
	tsSDK(t)
	page := tsPage(t)
	s := startServe(t)
	env := append(os.Environ(), "CDPKIT_TOKEN="+s.token)
	checkTSResult(t, runTSClient(t, env, "http", s.url, page))
}

// served is one `cdpkit serve` process.
type served struct {
	url, token string
	tmp        string
}

// startServe starts `cdpkit serve` on a free loopback port with a token of
// the test's choosing and stops it (leaving no browser) when the test ends.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	return startServeEnv(t, nil, args...)
}

// startServeEnv is startServe with env ("KEY=value") added to the child's
// environment, in place of a t.Setenv that would keep the test serial.
func startServeEnv(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	s := &served{tmp: t.TempDir(), token: "tok-" + strings.Repeat("0123456789", 3)}
	cmd := exec.Command(binary, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "TMPDIR="+s.tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t),
		"CDPKIT_TOKEN="+s.token, "CDPKIT_ARTIFACT_DIR="+filepath.Join(s.tmp, "artifacts"), "CDPKIT_TOOL_TIMEOUT="+loadedToolTimeout)
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	lines := bufio.NewScanner(stderr)
	urlRE := regexp.MustCompile(`url=(http://\S+)`)
	stuck := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	for s.url == "" && lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			s.url = m[1]
		}
	}
	stuck.Stop()
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stderr)
		close(done)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		exited := make(chan error, 1)
		go func() { <-done; exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Errorf("cdpkit serve did not exit within 15 s of SIGTERM")
		}
		browsertest.WaitNoProcesses(t, s.tmp, browsertest.ProcWait)
	})
	if s.url == "" {
		t.Fatalf("cdpkit serve printed no url:\n%s", log.String())
	}
	return s
}
