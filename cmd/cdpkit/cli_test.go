package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// cliEnv runs `cdpkit` CLI calls with their own state dir and TMPDIR, so
// their daemon, browser and profile can be told apart from other tests'.
type cliEnv struct {
	tmp, state, session string
	env                 []string
}

func newCLI(t *testing.T) *cliEnv {
	t.Helper()
	tmp := t.TempDir()
	e := &cliEnv{tmp: tmp, state: filepath.Join(tmp, "state"),
		session: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()%1e6)}
	e.env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+browsertest.ExecPath(t),
		"CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"), "CDPKIT_STATE_DIR="+e.state, "CDPKIT_SESSION="+e.session)
	t.Cleanup(func() {
		if _, stderr, code := e.run(t, "close"); code != 0 {
			t.Errorf("close: exit %d: %s", code, stderr)
		}
		browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
		if left, _ := filepath.Glob(filepath.Join(e.state, "*.sock")); len(left) > 0 {
			t.Errorf("sockets left after close: %v", left)
		}
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(e.state, "*.log"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, b)
			}
		}
	})
	return e
}

// run runs one CLI call and returns its output and exit code.
func (e *cliEnv) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	// Not t.Context(): cleanups call close after it is done.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = e.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("cdpkit %s: no exit within 90s", strings.Join(args, " "))
	}
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("cdpkit %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// ok runs a call that must succeed and returns its stdout.
func (e *cliEnv) ok(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, code := e.run(t, args...)
	if code != 0 {
		t.Fatalf("cdpkit %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// daemonPID returns the pid in the session's state file, or 0.
func (e *cliEnv) daemonPID(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.state, e.session+".json"))
	if err != nil {
		return 0
	}
	var st struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st.PID
}

// waitGone waits until pid has exited (or is a zombie).
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	browsertest.Eventually(t, within, func() error {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return nil
		}
		if s := string(b); strings.Contains(s[strings.LastIndexByte(s, ')'):], ") Z") {
			return nil
		}
		return fmt.Errorf("pid %d still running", pid)
	})
}

const cliPage = `<!doctype html><title>CLI form</title>
<label>Email <input id=email></label>
<button onclick="document.getElementById('out').textContent = 'Welcome ' + document.getElementById('email').value">Continue</button>
<p id=out></p>
<a href="/two">next</a>`

func cliServer(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, cliPage) })
	mux.HandleFunc("/two", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Second</title><h1>Two</h1>`)
	})
	return browsertest.ServerHandler(t, mux).URL
}

// refOf returns the ref on the snapshot line with role and name.
func refOf(t *testing.T, snap, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)\b(e\d+) ` + role + ` "` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no %s %q in snapshot:\n%s", role, name, snap)
	}
	return m[1]
}

func TestCLIVerbs(t *testing.T) {
	t.Parallel() // each has its own state dir, TMPDIR and session
	url := cliServer(t)
	e := newCLI(t)

	if out := e.ok(t, "open", url); !strings.Contains(out, "title: CLI form") || !strings.Contains(out, "status: 200") {
		t.Errorf("open printed %q, want the title and status", out)
	}
	// Refs from one call work in the next: the daemon keeps the tab.
	snap := e.ok(t, "snapshot", "-i")
	email, button := refOf(t, snap, "textbox", "Email"), refOf(t, snap, "button", "Continue")
	e.ok(t, "fill", email, "ada@example.com")
	out := e.ok(t, "--json", "click", "@"+button)
	var click map[string]any
	if err := json.Unmarshal([]byte(out), &click); err != nil {
		t.Fatalf("click --json printed %q: %v", out, err)
	}
	if _, ok := click["changes"]; !ok {
		t.Errorf("click --json = %s, want a changes field", out)
	}
	if got := e.ok(t, "get_text", "--selector", "#out"); !strings.Contains(got, "Welcome ada@example.com") {
		t.Errorf("get_text after click = %q, want the welcome text", got)
	}

	shot := filepath.Join(e.tmp, "out", "page.png")
	if got := e.ok(t, "screenshot", shot); !strings.Contains(got, shot) {
		t.Errorf("screenshot printed %q, want the path %s", got, shot)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() == 0 {
		t.Errorf("screenshot file: %v", err)
	}

	e.ok(t, "open", url+"/two")
	var tabs struct {
		Pages []struct {
			URL    string `json:"url"`
			Active bool   `json:"active"`
		} `json:"pages"`
	}
	if err := json.Unmarshal([]byte(e.ok(t, "tabs", "--json")), &tabs); err != nil {
		t.Fatal(err)
	}
	if len(tabs.Pages) != 1 || tabs.Pages[0].URL != url+"/two" {
		t.Errorf("tabs = %+v, want one tab on /two", tabs.Pages)
	}
	if got := e.ok(t, "back"); !strings.Contains(got, "title: CLI form") {
		t.Errorf("back printed %q, want the first page", got)
	}
	if got := e.ok(t, "reload"); !strings.Contains(got, "title: CLI form") {
		t.Errorf("reload printed %q, want the first page", got)
	}
	if got := e.ok(t, "take_snapshot", "--json", `{"interactive":true}`); !strings.Contains(got, `button "Continue"`) {
		t.Errorf("take_snapshot --json {…} printed %q", got)
	}

	// Failures: exit 1 with [CODE] on stderr; JSON with --json.
	_, stderr, code := e.run(t, "click", "e999")
	if code != 1 || !strings.HasPrefix(stderr, "[REF_NOT_FOUND] ") || !strings.Contains(stderr, "(hint: ") {
		t.Errorf("click e999: exit %d, stderr %q; want 1 and [REF_NOT_FOUND] … (hint: …)", code, stderr)
	}
	_, stderr, code = e.run(t, "--json", "click", "e999")
	var te struct {
		Code        string `json:"code"`
		Recoverable bool   `json:"recoverable"`
	}
	if err := json.Unmarshal([]byte(stderr), &te); code != 1 || err != nil || te.Code != "REF_NOT_FOUND" {
		t.Errorf("--json click e999: exit %d, stderr %q (%v); want 1 and a JSON error with code REF_NOT_FOUND", code, stderr, err)
	}
	_, stderr, code = e.run(t, "eval", "1+1")
	if code != 1 || !strings.HasPrefix(stderr, "[EVAL_DISABLED]") {
		t.Errorf("eval without --allow-eval: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{{"click"}, {"--json", "nosuch-command"}, {"click", "e1", "--bogus"}} {
		if _, stderr, code := e.run(t, args...); code != 2 || !strings.Contains(stderr, "[INVALID_ARGS]") {
			t.Errorf("cdpkit %s: exit %d, stderr %q; want 2 and [INVALID_ARGS]", strings.Join(args, " "), code, stderr)
		}
	}
	if _, stderr, code := e.run(t, "nosuch-command"); code != 2 || !strings.Contains(stderr, `unknown command "nosuch-command"`) {
		t.Errorf("cdpkit nosuch-command: exit %d, stderr %q; want 2 and unknown command", code, stderr)
	}

	out = e.ok(t, "sessions")
	if pid := e.daemonPID(t); !strings.Contains(out, e.session) || !strings.Contains(out, fmt.Sprint(pid)) {
		t.Errorf("sessions = %q, want %s with pid %d", out, e.session, pid)
	}

	pid := e.daemonPID(t)
	if got := e.ok(t, "close"); !strings.Contains(got, "closed") {
		t.Errorf("close printed %q", got)
	}
	waitGone(t, pid, browsertest.ProcWait)
	browsertest.WaitNoProcesses(t, e.tmp, browsertest.ProcWait)
	if _, err := os.Stat(filepath.Join(e.state, e.session+".sock")); err == nil {
		t.Error("socket left after close")
	}
	if got := e.ok(t, "close"); !strings.Contains(got, "not running") {
		t.Errorf("second close printed %q, want not running", got)
	}
}

func TestCLIHelp(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	e := &cliEnv{env: append(os.Environ(), "CDPKIT_STATE_DIR="+state)}
	out := e.ok(t, "help")
	for _, want := range []string{"cdpkit mcp", "open <url>", "fill <ref> <text>", "take_snapshot", "--session NAME", "Exit codes"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	out = e.ok(t, "click", "--help")
	for _, want := range []string{"Usage: cdpkit click <ref>", "--uid", "--dblClick", "boolean"} {
		if !strings.Contains(out, want) {
			t.Errorf("click --help lacks %q:\n%s", want, out)
		}
	}
	if out := e.ok(t, "help", "navigate_page"); !strings.Contains(out, "--waitUntil") {
		t.Errorf("help navigate_page = %q", out)
	}
	if _, err := os.Stat(state); err == nil {
		t.Error("help created a state dir")
	}
}

func TestDaemonFlags(t *testing.T) {
	for name, want := range map[string]bool{"allow-eval": false, "executable-path": true, "idle-timeout": true, "tools": true, "ws-header": true, "dialogs": true} {
		known, takesValue := daemonFlag(name)
		if !known || takesValue != want {
			t.Errorf("daemonFlag(%q) = %v, %v; want known, takes a value %v", name, known, takesValue, want)
		}
	}
	if known, _ := daemonFlag("listen"); known {
		t.Error("daemonFlag(listen) is known; it is serve's")
	}
}

func TestRedactFlags(t *testing.T) {
	got := redactFlags([]string{"--allow-eval", "--ws-header=Authorization: Bearer x", "--ws-endpoint", "ws://h/?token=x", "--tools=full"})
	want := []string{"--allow-eval", "--ws-header=…", "--ws-endpoint", "…", "--tools=full"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("redactFlags = %q, want %q", got, want)
	}
}

// TestCLIConcurrentStart checks that first calls racing for a session
// start exactly one daemon and one browser.
func TestCLIConcurrentStart(t *testing.T) {
	t.Parallel() // each has its own state dir, TMPDIR and session
	e := newCLI(t)
	var wg sync.WaitGroup
	errs := make([]string, 3)
	for i := range errs {
		wg.Go(func() {
			stdout, stderr, code := e.run(t, "get_url", "--json")
			if code != 0 {
				errs[i] = fmt.Sprintf("exit %d: %s %s", code, stdout, stderr)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != "" {
			t.Error(err)
		}
	}
	if got := browsertest.ProcessesMatching("daemon --session " + e.session); len(got) != 1 {
		t.Errorf("daemons for the session: %v, want exactly one", got)
	}
	if got := profiles(t, e.tmp); len(got) != 1 {
		t.Errorf("browser profiles: %v, want exactly one", got)
	}
}

// TestCLIKilledDaemon checks that the call after a kill -9 of the daemon
// starts a new one and says the session was reset.
func TestCLIKilledDaemon(t *testing.T) {
	t.Parallel() // each has its own state dir, TMPDIR and session
	url := cliServer(t)
	e := newCLI(t)
	e.ok(t, "open", url)
	pid := e.daemonPID(t)
	if pid == 0 {
		t.Fatal("no daemon pid in the state file")
	}
	sysproc.Kill(pid)
	waitGone(t, pid, browsertest.ProcWait)
	browsertest.WaitNoProcesses(t, e.tmp, browsertest.ProcWait)

	stdout, stderr, code := e.run(t, "--json", "tabs")
	if code != 0 {
		t.Fatalf("tabs after kill: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "was reset") {
		t.Errorf("stderr = %q, want the reset notice", stderr)
	}
	var res struct {
		Pages []struct {
			URL string `json:"url"`
		} `json:"pages"`
		SessionReset bool `json:"sessionReset"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || !res.SessionReset {
		t.Errorf("stdout = %q (%v), want sessionReset true", stdout, err)
	}
	if len(res.Pages) != 1 || res.Pages[0].URL == url+"/" {
		t.Errorf("pages after reset = %+v, want one fresh tab", res.Pages)
	}
	if got := e.daemonPID(t); got == pid || got == 0 {
		t.Errorf("daemon pid after reset = %d, want a new one (old %d)", got, pid)
	}
	// The next call is an ordinary one.
	if _, stderr, _ := e.run(t, "tabs"); strings.Contains(stderr, "reset") {
		t.Errorf("second call after reset says %q", stderr)
	}
}

// TestCLIIdleTimeout checks that an idle daemon exits by itself and cleans
// up its browser, socket and state file.
func TestCLIIdleTimeout(t *testing.T) {
	t.Parallel() // each has its own state dir, TMPDIR and session
	e := newCLI(t)
	start := time.Now()
	e.ok(t, "--idle-timeout", "1s", "tabs")
	pid := e.daemonPID(t)
	waitGone(t, pid, 15*time.Second)
	if d := time.Since(start); d < time.Second {
		t.Errorf("daemon exited after %s, before its idle timeout", d)
	}
	browsertest.WaitNoProcesses(t, e.tmp, browsertest.ProcWait)
	for _, ext := range []string{".sock", ".json"} {
		if _, err := os.Stat(filepath.Join(e.state, e.session+ext)); err == nil {
			t.Errorf("%s%s left after the idle exit", e.session, ext)
		}
	}
}

// TestCLIDaemonSignal checks that a daemon stopped by SIGTERM stops its
// browser and removes its socket and state file.
func TestCLIDaemonSignal(t *testing.T) {
	t.Parallel() // each has its own state dir, TMPDIR and session
	e := newCLI(t)
	e.ok(t, "tabs")
	pid := e.daemonPID(t)
	if len(browsertest.ProcessesMatching(e.tmp)) == 0 {
		t.Fatal("no browser process after the first call")
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Signal(syscall.SIGTERM)
	}
	waitGone(t, pid, 15*time.Second)
	browsertest.WaitNoProcesses(t, e.tmp, browsertest.ProcWait)
	for _, ext := range []string{".sock", ".json"} {
		if _, err := os.Stat(filepath.Join(e.state, e.session+ext)); err == nil {
			t.Errorf("%s%s left after SIGTERM", e.session, ext)
		}
	}
	if left := profiles(t, e.tmp); len(left) > 0 {
		t.Errorf("profiles left after SIGTERM: %v", left)
	}
}
