// Package browsertest holds helpers for cdpkit's real-browser tests: finding
// a Chromium to launch, serving test pages over HTTP, and checking that no
// browser process outlives the test that started it.
//
// It is for tests only. It lives in a non-_test file so that the tests of
// other packages can import it; production code must not.
package browsertest

import (
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// RequireEnv is the environment variable that, when set to "1", turns a
// missing browser into a test failure instead of a skip. CI sets it so that a
// broken install cannot pass as a green run of skipped tests.
const RequireEnv = "CDPKIT_REQUIRE_BROWSER"

// candidates are the executable names tried, in order, when CHROMIUM_PATH is
// unset.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// ExecPath returns the Chromium executable to launch: $CHROMIUM_PATH if set,
// else the first of chromium, chromium-browser, google-chrome and
// google-chrome-stable found on $PATH.
//
// If none is found it skips the test, or fails it when $CDPKIT_REQUIRE_BROWSER
// is "1". Either way the message says how to install one.
func ExecPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("browsertest: no Chromium found (tried $CHROMIUM_PATH and %s on $PATH); run scripts/install-browser.sh or set CHROMIUM_PATH",
		strings.Join(candidates, ", "))
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1)", msg, RequireEnv)
	} else {
		t.Skip(msg)
	}
	return ""
}

// ProcessesMatching returns, in ascending order, the pids of live processes
// whose command line contains substr, with the NUL bytes between arguments
// read as spaces. It excludes the calling process and zombies, and silently
// passes over entries it cannot read (processes that exited mid-scan, or
// that belong to other users under hidepid). An empty substr matches every
// process. It reads Linux's /proc and returns nil where that is missing.
//
// A process can start or exit just after the scan, so the result is a
// snapshot; use WaitNoProcesses to wait for processes to go away.
func ProcessesMatching(substr string) []int { return sysproc.Matching(substr) }

// WaitNoProcesses polls ProcessesMatching(substr) every 50 ms until it is
// empty, and reports a test error listing each survivor's pid and command
// line if that takes longer than within. It does not stop the test, so later
// cleanups still run.
func WaitNoProcesses(t testing.TB, substr string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		pids := ProcessesMatching(substr)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, pid := range pids {
				cmdline, err := sysproc.Cmdline(pid)
				if err != nil {
					cmdline = "(exited)"
				}
				fmt.Fprintf(&b, "\n  pid %d: %s", pid, truncate(strings.TrimSpace(cmdline), 200))
			}
			t.Errorf("browsertest: %d process(es) matching %q still running after %v:%s", len(pids), substr, within, b.String())
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Server starts an HTTP server on 127.0.0.1 serving fsys with
// http.FileServerFS, and closes it when the test and its subtests finish.
// See ServerHandler for the lifetime rules.
func Server(t testing.TB, fsys fs.FS) *httptest.Server {
	t.Helper()
	return ServerHandler(t, http.FileServerFS(fsys))
}

// ServerHandler starts an HTTP server on 127.0.0.1 serving h, and closes it
// via t.Cleanup when the test and its subtests finish.
//
// # Lifetime
//
// Closing waits for in-flight requests, so a handler that blocks must return
// when its request's context is done. Cleanups run last-in first-out: start
// the server before the browser if the browser should be gone before the
// server closes.
func ServerHandler(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	// Bind 127.0.0.1 explicitly rather than httptest's default, which may
	// fall back to [::1] or be redirected by the -httptest.serve flag.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("browsertest: listen: %v", err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// truncate shortens s to at most n bytes, marking a cut with "...".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Hold serves a URL whose requests are held open until they are cancelled
// or the test ends, and returns it with a channel that receives a value as
// each request arrives (the first 16). A page that fetches the URL keeps a
// call pending, such as a Runtime.evaluate awaiting the fetch, and arrived
// says the call has reached the page: an event to wait on instead of a
// sleep.
func Hold(t testing.TB) (url string, arrived <-chan struct{}) {
	t.Helper()
	hits := make(chan struct{}, 16)
	done := make(chan struct{})
	srv := ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Any origin may fetch it, so a page on another server can.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		select {
		case hits <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	// Registered after the server's Close, so it runs first: Close waits
	// for the held requests.
	t.Cleanup(func() { close(done) })
	return srv.URL + "/hold", hits
}
