package cdp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// The real-browser tests share one Chromium per transport, started on first
// use and stopped by TestMain; each test opens its own tab.

// transports names the ways these tests connect to Chromium.
var transports = []string{"pipe", "websocket"}

var shared struct {
	once     sync.Once
	browsers map[string]*chromium // by transport; written once in once
	err      error
}

func TestMain(m *testing.M) {
	browsertest.Main(m, func() error {
		var errs []error
		for _, b := range shared.browsers {
			errs = append(errs, b.stop())
		}
		return errors.Join(errs...)
	})
}

// sharedConn returns the connection to the package's Chromium for transport,
// starting both browsers on first use.
func sharedConn(tb testing.TB, transport string) *cdp.Conn {
	tb.Helper()
	execPath := browsertest.ExecPath(tb)
	shared.once.Do(func() {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs []error
		)
		shared.browsers = make(map[string]*chromium)
		for _, tr := range transports {
			wg.Go(func() {
				b, err := launch(execPath, tr)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				shared.browsers[tr] = b
			})
		}
		wg.Wait()
		shared.err = errors.Join(errs...)
	})
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.browsers[transport].conn
}

// chromium is a headless Chromium launched by these tests, in its own process
// group, with a temporary directory that holds its profile and log.
type chromium struct {
	cmd  *exec.Cmd
	root string // unique; it appears on the command line of every process
	conn *cdp.Conn

	exited   chan struct{} // closed once the main process has been reaped
	exitedAt time.Time     // written before exited is closed
}

// launch starts Chromium and connects to it over transport ("pipe" or
// "websocket").
func launch(execPath, transport string) (_ *chromium, err error) {
	root, err := os.MkdirTemp("", "cdpkit-cdp-test-")
	if err != nil {
		return nil, err
	}
	profile := filepath.Join(root, "profile")
	logPath := filepath.Join(root, "chromium.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	defer logFile.Close() // the child has its own copy

	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps",
		"--user-data-dir=" + profile,
	}
	var childFiles, ours []*os.File
	switch transport {
	case "pipe":
		// The browser reads commands on fd 3 and writes replies on fd 4.
		browserIn, connOut, err := os.Pipe()
		if err != nil {
			os.RemoveAll(root)
			return nil, err
		}
		connIn, browserOut, err := os.Pipe()
		if err != nil {
			browserIn.Close()
			connOut.Close()
			os.RemoveAll(root)
			return nil, err
		}
		childFiles = []*os.File{browserIn, browserOut}
		ours = []*os.File{connIn, connOut}
		args = append(args, "--remote-debugging-pipe")
	case "websocket":
		args = append(args, "--remote-debugging-port=0")
	default:
		os.RemoveAll(root)
		return nil, fmt.Errorf("unknown transport %q", transport)
	}
	args = append(args, "about:blank")

	cmd := exec.Command(execPath, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.ExtraFiles = childFiles
	sysproc.SetGroup(cmd, syscall.SIGKILL)
	err = cmd.Start()
	for _, f := range childFiles {
		f.Close() // else we would never see EOF when the browser dies
	}
	if err != nil {
		for _, f := range ours {
			f.Close()
		}
		os.RemoveAll(root)
		return nil, fmt.Errorf("starting %s: %w", execPath, err)
	}
	b := &chromium{cmd: cmd, root: root, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		b.exitedAt = time.Now()
		close(b.exited)
	}()
	defer func() {
		if err != nil {
			err = fmt.Errorf("launching chromium (%s): %w\n%s", transport, err, logTail(logPath))
			for _, f := range ours {
				f.Close()
			}
			b.stop()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var tr cdp.Transport
	if transport == "pipe" {
		tr = cdp.NewPipeTransport(ours[0], ours[1])
	} else {
		url, err := devToolsURL(ctx, profile)
		if err != nil {
			return nil, err
		}
		if tr, err = cdp.DialWebSocket(ctx, url, nil); err != nil {
			return nil, err
		}
	}
	b.conn = cdp.NewConn(tr, nil)
	if _, err := cdpapi.Call(ctx, b.conn.Browser(), browser.GetVersion, cdpapi.Empty{}); err != nil {
		return nil, err
	}
	return b, nil
}

// devToolsURL waits for Chromium to write <profile>/DevToolsActivePort and
// returns the browser's websocket URL from it.
func devToolsURL(ctx context.Context, profile string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if err == nil {
			// Line 1 is the port, line 2 the path; the file may be caught
			// half written.
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(lines) == 2 && lines[0] != "" && strings.HasPrefix(lines[1], "/devtools/browser/") {
				return "ws://127.0.0.1:" + strings.TrimSpace(lines[0]) + strings.TrimSpace(lines[1]), nil
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for DevToolsActivePort: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop closes the connection, kills the browser's process group and removes
// its directory. It reports processes that outlive the kill.
func (b *chromium) stop() error {
	if b.conn != nil {
		b.conn.Close()
	}
	sysproc.KillGroup(b.cmd.Process.Pid)
	var err error
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
		err = fmt.Errorf("chromium %d (%s) not reaped 10s after kill", b.cmd.Process.Pid, b.root)
	}
	if err == nil {
		err = browsertest.Poll(browsertest.ProcWait, func() error {
			if pids := browsertest.ProcessesMatching(b.root); len(pids) > 0 {
				return fmt.Errorf("chromium processes %v (%s) still running after kill", pids, b.root)
			}
			return nil
		})
	}
	os.RemoveAll(b.root)
	return err
}

// logTail returns the end of Chromium's log, for error messages.
func logTail(path string) string {
	b, _ := os.ReadFile(path)
	const max = 2000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

// forEachTransport runs f as a subtest per transport, on that transport's
// shared connection.
func forEachTransport(t *testing.T, f func(t *testing.T, conn *cdp.Conn)) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			f(t, sharedConn(t, tr))
		})
	}
}

// newPage opens an about:blank tab, attaches to it and closes it when the
// test ends.
func newPage(t testing.TB, conn *cdp.Conn) (*cdp.Session, target.ID) {
	t.Helper()
	res, err := cdpapi.Call(t.Context(), conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	if err != nil {
		t.Fatalf("creating target: %v", err)
	}
	t.Cleanup(func() {
		// t.Context() is already done when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cdpapi.Call(ctx, conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: res.TargetID})
	})
	sess, err := conn.Attach(t.Context(), res.TargetID)
	if err != nil {
		t.Fatalf("attaching: %v", err)
	}
	return sess, res.TargetID
}

// evaluate runs expr on the page, returning its value as JSON text.
func evaluate(ctx context.Context, sess *cdp.Session, expr string, awaitPromise bool) (jsonv2.Value, error) {
	yes := true
	params := runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes}
	if awaitPromise {
		params.AwaitPromise = &yes
	}
	res, err := cdpapi.Call(ctx, sess, runtime.Evaluate, params)
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("evaluating %q: exception: %s", expr, res.ExceptionDetails.Text)
	}
	if res.Result == nil {
		return nil, fmt.Errorf("evaluating %q: no result", expr)
	}
	return res.Result.Value, nil
}

// faultWait bounds the wait for the effect of a fault the test caused (a
// kill, a closed target): a deadline for a bug to fail the test, generous
// for a loaded machine, not a promise of speed.
const faultWait = time.Minute

// pendingFetch starts a Runtime.evaluate on sess that awaits a fetch held
// open by the test (browsertest.Hold), under a deadline of two minutes, and
// returns once the fetch reached the server: the call is then in flight in
// the page. The channel receives the call's error.
func pendingFetch(t *testing.T, sess *cdp.Session) <-chan error {
	t.Helper()
	url, arrived := browsertest.Hold(t)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		_, err := evaluate(ctx, sess, "fetch("+strconv.Quote(url)+").then(r => r.text())", true)
		done <- err
	}()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("the pending call ended before its fetch arrived: %v", err)
	}
	return done
}

func TestBrowserEvaluate(t *testing.T) {
	forEachTransport(t, func(t *testing.T, conn *cdp.Conn) {
		sess, _ := newPage(t, conn)
		got, err := evaluate(t.Context(), sess, "1+1", false)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "2" {
			t.Errorf("got 1+1 = %s, want 2", got)
		}
	})
}

// TestBrowserTimeoutKeepsSessionUsable is the real-browser version of
// TestTimedOutCallLeavesConnUsable.
func TestBrowserTimeoutKeepsSessionUsable(t *testing.T) {
	forEachTransport(t, func(t *testing.T, conn *cdp.Conn) {
		sess, _ := newPage(t, conn)
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		// The promise outlives the next call's deadline by far, so a next
		// call that waited for it fails every time, not just under load.
		_, err := evaluate(ctx, sess, "new Promise(r => setTimeout(r, 120000))", true)
		if !errors.Is(err, cdp.ErrTimeout) {
			t.Fatalf("got error %v, want ErrTimeout", err)
		}

		next, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		got, err := evaluate(next, sess, "1+1", false)
		if err != nil {
			t.Fatalf("evaluate after timeout: %v", err)
		}
		if string(got) != "2" {
			t.Errorf("got 1+1 = %s after timeout, want 2", got)
		}
	})
}

func TestBrowserLoadEventFired(t *testing.T) {
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>loaded</title><p>hello")
	}))
	forEachTransport(t, func(t *testing.T, conn *cdp.Conn) {
		sess, _ := newPage(t, conn)
		if _, err := cdpapi.Call(t.Context(), sess, page.Enable, page.EnableParams{}); err != nil {
			t.Fatalf("Page.enable: %v", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		loads := cdpapi.Events(ctx, sess, page.LoadEventFired) // subscribes now, before navigating
		nav, err := cdpapi.Call(ctx, sess, page.Navigate, page.NavigateParams{URL: srv.URL + "/page"})
		if err != nil {
			t.Fatalf("Page.navigate: %v", err)
		}
		if nav.ErrorText != "" {
			t.Fatalf("Page.navigate: %s", nav.ErrorText)
		}
		// The about:blank tab may report its own load late, so wait for the
		// load that leaves our page in place.
		for ev, err := range loads {
			if err != nil {
				t.Fatalf("waiting for Page.loadEventFired: %v", err)
			}
			if ev.Timestamp <= 0 {
				t.Errorf("got load event timestamp %v, want > 0", ev.Timestamp)
			}
			title, err := evaluate(ctx, sess, "document.title", false)
			if err != nil {
				t.Fatal(err)
			}
			if string(title) == `"loaded"` {
				return
			}
		}
		t.Fatalf("no Page.loadEventFired for %s: %v", srv.URL, ctx.Err())
	})
}

func TestBrowserClosedTargetFailsSession(t *testing.T) {
	forEachTransport(t, func(t *testing.T, conn *cdp.Conn) {
		sess, id := newPage(t, conn)

		pending := pendingFetch(t, sess)

		if _, err := cdpapi.Call(t.Context(), conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
			t.Fatalf("Target.closeTarget: %v", err)
		}
		select {
		case <-sess.Done():
		case <-time.After(faultWait):
			t.Fatal("session Done() not closed after closing its target")
		}
		select {
		case err := <-pending:
			if !errors.Is(err, cdp.ErrSessionClosed) {
				t.Errorf("pending call: got error %v, want ErrSessionClosed", err)
			}
		case <-time.After(faultWait):
			t.Fatal("pending call did not end after closing its target")
		}

		_, err := evaluate(t.Context(), sess, "1+1", false)
		var se *cdp.SessionClosedError
		if !errors.As(err, &se) || se.SessionID != sess.ID() {
			t.Errorf("call after close: got error %v, want *SessionClosedError for %s", err, sess.ID())
		}
		if _, err := cdpapi.Call(t.Context(), conn.Browser(), target.GetTargets, target.GetTargetsParams{}); err != nil {
			t.Errorf("browser session after closing a target: got error %v, want nil", err)
		}
	})
}

// TestBrowserLargeReply checks that a reply far beyond the websocket
// library's default read limit arrives intact.
func TestBrowserLargeReply(t *testing.T) {
	const n = 2_000_000
	forEachTransport(t, func(t *testing.T, conn *cdp.Conn) {
		sess, _ := newPage(t, conn)
		raw, err := evaluate(t.Context(), sess, "'x'.repeat(2e6)", false)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := jsonv2.Unmarshal(raw, &got); err != nil {
			t.Fatalf("decoding value: %v", err)
		}
		if len(got) != n || strings.Count(got, "x") != n {
			t.Errorf("got a string of %d bytes with %d x's, want %d x's", len(got), strings.Count(got, "x"), n)
		}
	})
}

// TestPipeBrowserKilled checks that a browser dying under a pending call is
// noticed at once. It uses its own Chromium so the shared one survives.
func TestPipeBrowserKilled(t *testing.T) {
	b, err := launch(browsertest.ExecPath(t), "pipe")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.stop(); err != nil {
			t.Error(err)
		}
	})
	sess, _ := newPage(t, b.conn)

	pending := pendingFetch(t, sess)

	killedAt := time.Now()
	if err := sysproc.KillGroup(b.cmd.Process.Pid); err != nil {
		t.Fatalf("killing the browser: %v", err)
	}
	// ErrDisconnected, not the call's own deadline.
	err = <-pending
	failedAt := time.Now()
	if !errors.Is(err, cdp.ErrDisconnected) {
		t.Errorf("pending call: got error %v, want ErrDisconnected", err)
	}
	select {
	case <-b.exited:
	case <-time.After(faultWait):
		t.Fatal("browser not reaped after the kill")
	}
	// Reported, not asserted: how soon is for a quiet machine (make bench).
	t.Logf("kill→exit %v, kill→call failed %v", b.exitedAt.Sub(killedAt), failedAt.Sub(killedAt))
	select {
	case <-b.conn.Done():
	case <-time.After(faultWait):
		t.Fatal("Conn.Done() not closed after the kill")
	}
	if b.conn.Err() == nil {
		t.Error("got Conn.Err() nil after the kill, want non-nil")
	}
	if _, err := cdpapi.Call(t.Context(), b.conn.Browser(), browser.GetVersion, cdpapi.Empty{}); !errors.Is(err, cdp.ErrDisconnected) {
		t.Errorf("call after the kill: got error %v, want ErrDisconnected", err)
	}
}
