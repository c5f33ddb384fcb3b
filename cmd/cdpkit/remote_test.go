package main

import (
	"bytes"
	"errors"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestWSEndpointBusy attaches `cdpkit mcp` to a pool that is full: the
// call gets BROWSER_BUSY with the pool's Retry-After, and neither the
// token in the URL nor the header's value shows in the result or the log.
func TestWSEndpointBusy(t *testing.T) {
	t.Parallel()
	const token, key = "tok-9f8e7d", "key-1a2b3c"
	var sawKey atomic.Bool
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawKey.Store(r.Header.Get("X-Pool-Key") == key && r.URL.Query().Get("token") == token)
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	endpoint := "ws" + strings.TrimPrefix(srv.URL, "http") + "/chromium?token=" + token
	tmp := t.TempDir()
	cmd := exec.Command(binary, "mcp", "--ws-endpoint", endpoint, "--ws-header", "X-Pool-Key: "+key, "--log-level", "debug")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_STATE_DIR="+tmp, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-test", Version: "0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, stderr.String())
	}
	c := &child{cmd: cmd, tmp: tmp, session: session}
	res := c.call(t, "list_pages", map[string]any{"timeout_ms": 20000})
	got := text(t, res)
	if !res.IsError || !strings.HasPrefix(got, "[BROWSER_BUSY]") || !strings.Contains(got, "2m0s") {
		t.Errorf("list_pages = %s, want BROWSER_BUSY naming the 2m Retry-After", got)
	}
	session.Close()
	waitExited(t, c)
	if !sawKey.Load() {
		t.Error("the pool never saw the token and the X-Pool-Key header")
	}
	for _, secret := range []string{token, key} {
		if strings.Contains(got, secret) || strings.Contains(stderr.String(), secret) {
			t.Errorf("%q shows in the result or the log:\n%s\n%s", secret, got, stderr.String())
		}
	}
}

func TestWebDriverFlags(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig("mcp", []string{"--webdriver-url", "http://127.0.0.1:9515",
		"--webdriver-capability", `goog:chromeOptions={"binary":"/x"}`, "--webdriver-capability", `se:name="a"`}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(cfg.opts.WebDriverCapabilities["se:name"]); got != `"a"` || len(cfg.opts.WebDriverCapabilities) != 2 {
		t.Errorf("WebDriverCaps = %s, want goog:chromeOptions and se:name", cfg.opts.WebDriverCapabilities)
	}
	for _, args := range [][]string{
		{"--webdriver-url", "http://h:1", "--ws-endpoint", "ws://h:2/x"},
		{"--webdriver-capability", `a=1`},
		{"--webdriver-url", "http://h:1", "--webdriver-capability", `a=not json`},
	} {
		if _, err := parseConfig("mcp", args, &bytes.Buffer{}); err == nil || errors.Is(err, flag.ErrHelp) {
			t.Errorf("parseConfig(%q) = %v, want an error", args, err)
		}
	}
	got := redactFlags([]string{"--webdriver-url", "http://u:p@grid", "--webdriver-capability=k=1"})
	if want := []string{"--webdriver-url", "…", "--webdriver-capability=…"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("redactFlags = %q, want %q", got, want)
	}
}
