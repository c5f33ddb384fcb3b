package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// chromedriver is Debian's chromium-driver, started for one test with its
// own TMPDIR (where the browsers it starts keep their profiles).
type chromedriver struct {
	url string
	tmp string
}

// startChromedriver starts chromedriver on a free loopback port and waits
// until it is ready. Cleanup deletes the sessions left (so a failing test
// leaves no browser), stops it and waits for its browsers to exit.
func startChromedriver(t *testing.T) *chromedriver {
	t.Helper()
	exe, err := exec.LookPath("chromedriver")
	if err != nil {
		t.Fatal("chromedriver not found: run scripts/install-deps.sh (Debian's chromium-driver)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	tmp := t.TempDir()
	cmd := exec.Command(exe, "--port="+strconv.Itoa(port), "--allowed-ips=127.0.0.1")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	sysproc.SetGroup(cmd, syscall.SIGKILL)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &chromedriver{url: "http://127.0.0.1:" + strconv.Itoa(port), tmp: tmp}
	t.Cleanup(func() {
		for _, id := range d.sessions(t) {
			req, _ := http.NewRequest(http.MethodDelete, d.url+"/session/"+id, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		sysproc.KillGroup(cmd.Process.Pid)
		cmd.Wait()
		browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
		if t.Failed() {
			t.Logf("chromedriver output:\n%s", out.String())
		}
	})
	browsertest.Eventually(t, time.Minute, func() error {
		resp, err := http.Get(d.url + "/status")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	return d
}

// sessions lists the ids of chromedriver's live sessions (its /sessions).
func (d *chromedriver) sessions(t *testing.T) []string {
	t.Helper()
	// Not t.Context(): cleanup asks too, after it is cancelled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.url+"/sessions", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /sessions: %v", err)
	}
	defer resp.Body.Close()
	var v struct {
		Value []struct {
			ID string `json:"id"`
		} `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET /sessions: %v", err)
	}
	var ids []string
	for _, s := range v.Value {
		ids = append(ids, s.ID)
	}
	return ids
}

// wantSessions waits until chromedriver holds n sessions.
func (d *chromedriver) wantSessions(t *testing.T, n int) {
	t.Helper()
	browsertest.Eventually(t, time.Minute, func() error {
		if got := d.sessions(t); len(got) != n {
			return fmt.Errorf("chromedriver has %d sessions %v, want %d", len(got), got, n)
		}
		return nil
	})
}

// startWebDriverMCP starts `cdpkit mcp --webdriver-url` on d with its own
// state dir (the session ledger) and env added. The browser's binary is
// passed as a capability, as a user would for a chromedriver that does not
// find it.
func startWebDriverMCP(t *testing.T, d *chromedriver, state string, env ...string) (*child, *syncBuffer) {
	t.Helper()
	return startRemoteMCP(t, d.url, state, nil, env...)
}

// startRemoteMCP starts `cdpkit mcp --webdriver-url remote` with args
// added, as startWebDriverMCP does.
func startRemoteMCP(t *testing.T, remote, state string, args []string, env ...string) (*child, *syncBuffer) {
	t.Helper()
	binaryCap, _ := json.Marshal(map[string]string{"binary": browsertest.ExecPath(t)})
	tmp := t.TempDir()
	cmd := exec.Command(binary, append([]string{"mcp", "--tools", "full", "--webdriver-url", remote,
		"--webdriver-capability", "goog:chromeOptions=" + string(binaryCap)}, args...)...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_STATE_DIR="+state,
		"CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts")), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	// Once cdpkit has exited, Wait gives its stderr pipe 10 s more, not
	// for ever: a full suite once saw the pipe held open after the exit,
	// and waitExited says so rather than hang.
	cmd.WaitDelay = 10 * time.Second
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-test", Version: "0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 90 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to cdpkit mcp: %v\nstderr:\n%s", err, stderr)
	}
	c := &child{cmd: cmd, tmp: tmp, session: session}
	t.Cleanup(func() {
		session.Close()
		if t.Failed() {
			t.Logf("cdpkit stderr:\n%s", stderr)
		}
	})
	return c, stderr
}

// waitExited waits for c's cdpkit to exit. The bound only keeps a hang
// from holding the suite: shutting down stops a browser, which takes
// seconds on a loaded machine (10 s failed a full-suite run once). A pipe
// still open after cdpkit exited (WaitDelay) is logged, not waited on.
func waitExited(t *testing.T, c *child) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		if err := c.cmd.Wait(); errors.Is(err, exec.ErrWaitDelay) {
			t.Logf("cdpkit exited, but its stderr stayed open %v after", c.cmd.WaitDelay)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("cdpkit did not exit")
	}
}

// TestWebDriverCoreLoop drives a page through a chromedriver session, as
// an agent would (navigate → snapshot → fill → click → screenshot), then
// closes cdpkit: its session is gone with it.
func TestWebDriverCoreLoop(t *testing.T) {
	t.Parallel()
	d := startChromedriver(t)
	srv := browsertest.Server(t, fixtures.Pages())
	c, _ := startWebDriverMCP(t, d, t.TempDir())

	c.act(t, "navigate_page", map[string]any{"url": srv.URL + "/app.html"})
	d.wantSessions(t, 1)
	snap := text(t, c.call(t, "take_snapshot", map[string]any{"interactive": true}))
	c.act(t, "fill", map[string]any{"uid": refFor(t, snap, "textbox", "Username"), "value": "ada"})
	c.act(t, "fill", map[string]any{"uid": refFor(t, snap, "textbox", "Password"), "value": "lovelace"})
	login := c.act(t, "click", map[string]any{"uid": refFor(t, snap, "button", "Sign in")})
	if !strings.HasSuffix(login.Changes.URL, "#/list") {
		t.Fatalf("after sign-in the url is %q, want …#/list", login.Changes.URL)
	}
	res := c.call(t, "take_screenshot", nil)
	if res.IsError {
		t.Fatalf("take_screenshot: %s", text(t, res))
	}
	if _, ok := res.Content[len(res.Content)-1].(*mcp.ImageContent); !ok {
		t.Errorf("take_screenshot's last content is %T, want an image", res.Content[len(res.Content)-1])
	}

	c.session.Close()
	waitExited(t, c)
	d.wantSessions(t, 0)
}

// TestWebDriverExitPaths checks that every way cdpkit stops using a
// session deletes it: idle shutdown, SIGTERM, and a SIGKILL followed by the
// next start, which reaps the session from the ledger.
func TestWebDriverExitPaths(t *testing.T) {
	t.Parallel()
	d := startChromedriver(t)
	t.Run("idle", func(t *testing.T) {
		c, _ := startWebDriverMCP(t, d, t.TempDir(), "CDPKIT_IDLE_TIMEOUT=1s")
		if res := c.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages: %s", text(t, res))
		}
		d.wantSessions(t, 0) // the idle shutdown deleted it
		res := c.call(t, "list_pages", nil)
		if got := text(t, res); res.IsError || !strings.HasPrefix(got, "sessionReset: true\n") {
			t.Errorf("list_pages after the idle shutdown = %s, want a result with sessionReset", got)
		}
		c.session.Close()
		waitExited(t, c)
		d.wantSessions(t, 0)
	})
	t.Run("SIGTERM", func(t *testing.T) {
		c, _ := startWebDriverMCP(t, d, t.TempDir())
		if res := c.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages: %s", text(t, res))
		}
		d.wantSessions(t, 1)
		c.cmd.Process.Signal(syscall.SIGTERM)
		waitExited(t, c)
		d.wantSessions(t, 0)
	})
	t.Run("SIGKILL then next start", func(t *testing.T) {
		state := t.TempDir()
		c, _ := startWebDriverMCP(t, d, state)
		if res := c.call(t, "list_pages", nil); res.IsError {
			t.Fatalf("list_pages: %s", text(t, res))
		}
		d.wantSessions(t, 1)
		if ledger, _ := filepath.Glob(filepath.Join(state, "webdriver-*.json")); len(ledger) != 1 {
			t.Fatalf("ledger files = %v, want one", ledger)
		}
		c.cmd.Process.Kill()
		waitExited(t, c)
		d.wantSessions(t, 1) // nobody deleted it
		next, _ := startWebDriverMCP(t, d, state)
		d.wantSessions(t, 0)
		if ledger, _ := filepath.Glob(filepath.Join(state, "webdriver-*.json")); len(ledger) != 0 {
			t.Errorf("ledger files after the next start = %v, want none", ledger)
		}
		next.session.Close()
		waitExited(t, next)
	})
}

// TestWebDriverLostSession deletes cdpkit's session behind its back (as a
// grid timing it out would): the next call gets a new session and says so
// with sessionReset.
func TestWebDriverLostSession(t *testing.T) {
	t.Parallel()
	d := startChromedriver(t)
	c, _ := startWebDriverMCP(t, d, t.TempDir())
	if res := c.call(t, "list_pages", nil); res.IsError {
		t.Fatalf("list_pages: %s", text(t, res))
	}
	ids := d.sessions(t)
	if len(ids) != 1 {
		t.Fatalf("sessions = %v, want one", ids)
	}
	req, _ := http.NewRequest(http.MethodDelete, d.url+"/session/"+ids[0], nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The browser's exit drops cdpkit's connection; the first call after
	// may still see the dying browser.
	var got string
	browsertest.Eventually(t, time.Minute, func() error {
		res := c.call(t, "list_pages", nil)
		got = text(t, res)
		if res.IsError || !strings.Contains(got, "sessionReset") {
			return fmt.Errorf("list_pages = %s, want a result with sessionReset", got)
		}
		return nil
	})
	if !strings.HasPrefix(got, "sessionReset: true\n") {
		t.Errorf("list_pages = %s, want sessionReset true", got)
	}
	if now := d.sessions(t); len(now) != 1 || now[0] == ids[0] {
		t.Errorf("sessions = %v, want one new one", now)
	}
	c.session.Close()
	waitExited(t, c)
	d.wantSessions(t, 0)
}
