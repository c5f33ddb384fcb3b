package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestStartupRefusals checks flags that must stop cdpkit before it starts:
// exit status 2 and a message naming the flag.
func TestStartupRefusals(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "pwned")
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"mcp", "--chrome-arg=--renderer-cmd-prefix=touch " + marker}, "renderer-cmd-prefix"},
		{[]string{"mcp", "--chrome-arg", "-renderer-cmd-prefix=touch " + marker}, "renderer-cmd-prefix"},
		{[]string{"mcp", "--chrome-arg=--utility-cmd-prefix=x"}, "utility-cmd-prefix"},
		{[]string{"mcp", "--chrome-arg=--gpu-launcher=x"}, "gpu-launcher"},
		{[]string{"mcp", "--chrome-arg=--browser-subprocess-path=/bin/sh"}, "browser-subprocess-path"},
		{[]string{"mcp", "--chrome-arg=--load-extension=/tmp/x"}, "load-extension"},
		{[]string{"mcp", "--chrome-arg=--remote-allow-origins=*"}, "remote-allow-origins"},
		{[]string{"mcp", "--chrome-arg=--remote-debugging-address=0.0.0.0"}, "remote-debugging-address"},
		{[]string{"mcp", "--chrome-arg=--remote-debugging-port=9222"}, "remote-debugging-port"},
		{[]string{"mcp", "--chrome-arg=--user-data-dir=/root"}, "user-data-dir"},
		{[]string{"serve", "--chrome-arg=--REMOTE-DEBUGGING-PORT=9222"}, "remote-debugging-port"},
		{[]string{"mcp", "--allowed-origins=file:///etc"}, "allowed-origins"},
		{[]string{"mcp", "--blocked-origins=a.test/path"}, "blocked-origins"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, tt.args...)
			cmd.Env = append(os.Environ(), "CDPKIT_ARTIFACT_DIR="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("exit = %v, want status 2; stderr:\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.mention) {
				t.Errorf("stderr does not name %s:\n%s", tt.mention, stderr.String())
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the refused renderer prefix ran")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecretsNeverLogged types a password every way cdpkit can — fill,
// fill_form, type_text and press_key one character at a time — into a
// `cdpkit mcp --log-level debug` and looks for it in everything the
// process wrote to stderr.
func TestSecretsNeverLogged(t *testing.T) {
	t.Parallel()
	const secret = "Hunter2-Sup3rS3cret"
	site := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>login</title><form><input id="user"><input id="pw" type="password"><select id="plan"><option>a</option></select></form>`)
	}))
	tmp := t.TempDir()
	cmd := exec.Command(binary, "mcp", "--tools", "full", "--log-level", "debug")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t), "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-test", Version: "0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting: %v\n%s", err, stderr.String())
	}
	c := &child{cmd: cmd, tmp: tmp, session: session}
	defer func() {
		session.Close()
		browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
	}()
	call := func(name string, args map[string]any) {
		t.Helper()
		res := c.call(t, name, args)
		if res.IsError && name != "fill" {
			t.Fatalf("%s: %s", name, text(t, res))
		}
	}
	call("navigate_page", map[string]any{"url": site.URL})
	call("fill", map[string]any{"selector": "#pw", "value": secret})
	call("fill", map[string]any{"selector": "#plan", "value": secret}) // fails: no such option
	call("fill_form", map[string]any{"elements": []map[string]any{{"selector": "#user", "value": secret}, {"selector": "#pw", "value": secret}}})
	call("type_text", map[string]any{"selector": "#pw", "text": secret, "submitKey": "Tab"})
	call("click", map[string]any{"selector": "#user"})
	for _, r := range secret {
		call("press_key", map[string]any{"key": string(r)})
	}
	session.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("cdpkit did not exit")
	}
	out := stderr.String()
	if !strings.Contains(out, "level=DEBUG") || !strings.Contains(out, "tool=press_key") {
		t.Fatalf("stderr has no debug lines for the calls, so the check proves nothing:\n%s", out)
	}
	for _, s := range []string{secret, "Hunter2", "Sup3r", "S3cret"} {
		if strings.Contains(out, s) {
			t.Errorf("stderr holds %q:\n%s", s, out)
		}
	}
}
