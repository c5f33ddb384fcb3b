package browser

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/cdp"
)

// waitLimit bounds every wait for something that should happen promptly, so
// that a bug fails the test instead of hanging it. It is a deadline for a
// bug, not a promise of speed: 10 s was too short for a page load while
// the other packages' tests ran beside this one on a loaded 2-core machine
// (TestConsoleReplay).
const waitLimit = 30 * time.Second

// shared is the one browser the tests of this package share; each test opens
// its own tab in it. Tests that need a browser of their own (lifecycle,
// leaks, attach, Manager) start one.
var shared struct {
	once sync.Once
	b    *Browser
	err  error
}

func TestMain(m *testing.M) {
	browsertest.Main(m, func() error {
		for _, c := range sharedClosers {
			c()
		}
		if shared.b == nil {
			return nil
		}
		if err := shared.b.Close(); err != nil {
			return fmt.Errorf("closing the shared browser: %w", err)
		}
		return nil
	})
}

// sharedBrowser starts the shared browser on first use.
func sharedBrowser(t *testing.T) *Browser {
	t.Helper()
	exe := browsertest.ExecPath(t)
	shared.once.Do(func() {
		// Not t.Context(): the browser outlives this test.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		shared.b, shared.err = Start(ctx, &Options{ExecPath: exe})
	})
	if shared.err != nil {
		t.Fatalf("starting the shared browser: %v", shared.err)
	}
	return shared.b
}

// newTab opens a tab in the shared browser and closes it when the test ends.
func newTab(t *testing.T) (*Browser, *Tab) {
	t.Helper()
	b := sharedBrowser(t)
	tab, err := b.NewTab(t.Context())
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	t.Cleanup(func() { closeTab(t, b, tab) })
	return b, tab
}

// pendingCall is the deadline of a call a test keeps pending until a fault
// ends it: generous, since the fault's error, not this deadline, is what
// the test expects.
const pendingCall = 2 * time.Minute

// pendingEval starts a Runtime.evaluate on s that awaits a fetch held open
// by the test (browsertest.Hold) under a deadline of pendingCall, and
// returns once the fetch reached the server: the call is then in flight in
// the page. The channel receives the call's error.
func pendingEval(t *testing.T, s *cdp.Session) <-chan error {
	t.Helper()
	url, arrived := browsertest.Hold(t)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), pendingCall)
		defer cancel()
		yes := true
		_, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "fetch(" + strconv.Quote(url) + ").then(r => r.text())", AwaitPromise: &yes})
		done <- err
	}()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("the pending call ended before its fetch arrived: %v", err)
	}
	return done
}

// closeTab closes tab unless it is already gone.
func closeTab(t *testing.T, b *Browser, tab *Tab) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	pages, err := b.Pages(ctx)
	if err != nil {
		t.Errorf("Pages: %v", err)
		return
	}
	for _, p := range pages {
		if p.ID == tab.ID() {
			if err := b.CloseTab(ctx, tab); err != nil {
				t.Errorf("CloseTab: %v", err)
			}
			return
		}
	}
}

// fixtures serves testdata/ plus a few handlers for what files cannot do.
type fixtures struct {
	*httptest.Server
	// blockedHits receives a value for each request to /blocked.png (the
	// first 16).
	blockedHits chan struct{}
}

// serveFixtures starts the fixture server. Its cleanup runs after the
// cleanups registered later, such as closing a tab.
//
//	/redirect      302 to /alpha.html
//	/missing       404 with an HTML body
//	/stuck.html    a page whose load never finishes: its image never arrives
//	/blocked.png   blocks until the request is cancelled or the test ends
//	/favicon.ico   204, so that Chromium's favicon fetch logs no 404
func serveFixtures(t *testing.T) *fixtures {
	t.Helper()
	release := make(chan struct{})
	f := &fixtures{blockedHits: make(chan struct{}, 16)}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(os.DirFS("testdata")))
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/alpha.html", http.StatusFound)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<!doctype html><title>Not here</title><p>404")
	})
	mux.HandleFunc("/stuck.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Stuck page</title><p id="section">waiting<img src="/blocked.png">`)
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/blocked.png", func(w http.ResponseWriter, r *http.Request) {
		select {
		case f.blockedHits <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	f.Server = browsertest.ServerHandler(t, mux)
	// Registered after the server's own cleanup, so it runs first and the
	// server's Close does not wait forever on /blocked.png.
	t.Cleanup(func() { close(release) })
	return f
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// proc is one live process as /proc shows it.
type proc struct {
	pid, pgrp int
	cmdline   string
}

// processes lists the live (non-zombie) processes for which keep returns
// true. Entries that vanish mid-scan are skipped.
func processes(keep func(p proc) bool) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the parenthesized command name: state, ppid, pgrp, …
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		pgrp, _ := strconv.Atoi(fields[2])
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		p := proc{pid: pid, pgrp: pgrp, cmdline: string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))}
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// inGroup selects the processes of process group pgrp.
func inGroup(pgrp int) func(proc) bool {
	return func(p proc) bool { return p.pgrp == pgrp }
}

// withEnv selects the processes whose initial environment holds kv, such as
// "NAME=value". Chromium's crashpad handlers inherit the browser's
// environment but neither its process group nor its --user-data-dir, so this
// is how to find them.
func withEnv(kv string) func(proc) bool {
	want := []byte(kv)
	return func(p proc) bool {
		env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "environ"))
		if err != nil {
			return false
		}
		for v := range bytes.SplitSeq(env, []byte{0}) {
			if bytes.Equal(v, want) {
				return true
			}
		}
		return false
	}
}

// waitNoProcs waits until no process passes keep, and reports the
// survivors as a test error if that takes longer than within.
func waitNoProcs(t *testing.T, what string, keep func(proc) bool, within time.Duration) {
	t.Helper()
	err := browsertest.Poll(within, func() error {
		left := processes(keep)
		if len(left) == 0 {
			return nil
		}
		var b strings.Builder
		for _, p := range left {
			fmt.Fprintf(&b, "\n  pid %d pgrp %d: %.200s", p.pid, p.pgrp, p.cmdline)
		}
		return fmt.Errorf("%d process(es) (%s) still running after %v:%s", len(left), what, within, b.String())
	})
	if err != nil {
		t.Error(err)
	}
}

// userDataDirArg is how dir appears on a Chromium command line as read by
// ProcessesMatching. The trailing space keeps /tmp/x-1 from matching
// /tmp/x-12.
func userDataDirArg(dir string) string { return "--user-data-dir=" + dir + " " }

// privateTempDir returns a fresh directory for the test to give its
// browsers as Options.tempDir, so that the profiles (and the browser temp
// dirs) they create, and the processes naming them, cannot be confused
// with those of other tests or processes. Unlike setting TMPDIR, it lets
// the test run in parallel.
func privateTempDir(t *testing.T) string {
	t.Helper()
	return t.TempDir()
}

// profilesIn lists the cdpkit-profile-* entries in dir.
func profilesIn(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, profilePrefix+"*"))
	if err != nil {
		t.Fatalf("glob: %v", err)
	}
	return matches
}
