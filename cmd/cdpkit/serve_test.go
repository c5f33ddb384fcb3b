package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServe starts cdpkit serve as a user would, reads the URL and the
// generated token from stderr, drives a tool over HTTP, and stops it with
// SIGTERM leaving no browser behind.
func TestServe(t *testing.T) {
	tmp := t.TempDir()
	cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t),
		"CDPKIT_TOKEN=", "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var url, token string
	lines := bufio.NewScanner(stderr)
	tokenRE, urlRE := regexp.MustCompile(`token ([0-9a-f]{32})`), regexp.MustCompile(`url=(http://\S+)`)
	// A read cannot take a deadline: if the lines never come, killing the
	// process closes the pipe and ends the scan.
	stuck := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	for (url == "" || token == "") && lines.Scan() {
		if m := tokenRE.FindStringSubmatch(lines.Text()); m != nil {
			token = m[1]
		}
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	go func() {
		for lines.Scan() {
		}
	}()
	stuck.Stop()
	if url == "" || token == "" {
		t.Fatalf("did not read the url (%q) and token (%q) from stderr", url, token)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_pages"})
	if err != nil || res.IsError {
		t.Fatalf("list_pages over HTTP: %v %v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, `"pages"`) {
		t.Errorf("list_pages = %s", got)
	}
	cs.Close()

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the token got %d, want 401", resp.StatusCode)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("cdpkit serve did not exit within 15s of SIGTERM")
	}
	browsertest.WaitNoProcesses(t, tmp, 5*time.Second)
}

func TestServeRefusesRemoteWithoutFlag(t *testing.T) {
	out, err := exec.Command(binary, "serve", "--listen", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--allow-remote") {
		t.Errorf("serve on 0.0.0.0 = %v, %s; want a refusal naming --allow-remote", err, out)
	}
}
