package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// crashTab crashes tab's renderer with Page.crash, which never answers, and
// waits for the tab to know it crashed.
func crashTab(t *testing.T, tab *Tab) {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	cdpapi.Call(ctx, s, page.Crash, cdpapi.Empty{})
	browsertest.Eventually(t, waitLimit, func() error {
		if tab.CheckCrashed() == nil {
			return errors.New("the tab did not report its crash")
		}
		return nil
	})
}

// pageOf returns the listed page of tab.
func pageOf(t *testing.T, b *Browser, tab *Tab) driver.Page {
	t.Helper()
	pages, err := b.Pages(t.Context())
	if err != nil {
		t.Fatalf("Pages: %v", err)
	}
	for _, p := range pages {
		if p.ID == tab.ID() {
			return p
		}
	}
	t.Fatalf("tab %s is not listed in %+v", tab.ID(), pages)
	return driver.Page{}
}

func TestRendererCrash(t *testing.T) {
	t.Parallel()
	f := serveFixtures(t)
	for _, recover := range []string{"navigate", "reload"} {
		t.Run(recover, func(t *testing.T) {
			b, tab := newTab(t)
			_, other := newTab(t)
			if _, err := tab.Navigate(t.Context(), f.URL+"/alpha.html"); err != nil {
				t.Fatalf("Navigate: %v", err)
			}
			if _, err := other.Navigate(t.Context(), f.URL+"/bravo.html"); err != nil {
				t.Fatalf("Navigate other: %v", err)
			}

			// A call in flight when the renderer dies fails at once.
			s, err := tab.session(t.Context())
			if err != nil {
				t.Fatalf("Session: %v", err)
			}
			inFlight := pendingEval(t, s)
			crashTab(t, tab)
			// ErrTargetCrashed, not the call's own deadline.
			if err := <-inFlight; !errors.Is(err, driver.ErrTargetCrashed) {
				t.Errorf("call in flight at the crash = %v, want ErrTargetCrashed", err)
			}
			if err := tab.CheckCrashed(); !errors.Is(err, driver.ErrTargetCrashed) {
				t.Errorf("CheckCrashed = %v, want ErrTargetCrashed", err)
			}
			if p := pageOf(t, b, tab); !p.Crashed {
				t.Errorf("Pages lists the crashed tab as %+v, want Crashed", p)
			}
			// Other tabs are unaffected.
			if p := pageOf(t, b, other); p.Crashed {
				t.Errorf("Pages lists the other tab as %+v, want not Crashed", p)
			}
			if loc, err := other.Location(t.Context()); err != nil || loc.Title != "Bravo page" {
				t.Errorf("other tab's Location = %+v, %v; want Bravo page", loc, err)
			}

			var res *driver.NavResult
			start := time.Now()
			if recover == "navigate" {
				res, err = tab.Navigate(t.Context(), f.URL+"/charlie.html")
			} else {
				res, err = tab.Reload(t.Context(), false, nil)
			}
			if err != nil {
				t.Fatalf("%s after the crash: %v (after %v)", recover, err, time.Since(start))
			}
			if want := map[string]string{"navigate": "Charlie page", "reload": "Alpha page"}[recover]; res.Title != want {
				t.Errorf("%s after the crash: title %q, want %q", recover, res.Title, want)
			}
			if err := tab.CheckCrashed(); err != nil {
				t.Errorf("CheckCrashed after %s = %v, want nil", recover, err)
			}
			if p := pageOf(t, b, tab); p.Crashed {
				t.Errorf("Pages after %s lists %+v, want not Crashed", recover, p)
			}
			if got, err := evalString(t.Context(), tab, "document.title"); err != nil || got != `"`+res.Title+`"` {
				t.Errorf("evaluating in the recovered tab = %s, %v; want its title", got, err)
			}
		})
	}
}

// evalString evaluates expr in tab and returns the JSON of its value.
func evalString(ctx context.Context, tab *Tab, expr string) (string, error) {
	s, err := tab.session(ctx)
	if err != nil {
		return "", err
	}
	yes := true
	res, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes})
	if err != nil {
		return "", err
	}
	if res.Result == nil {
		return "", errors.New("no result")
	}
	return string(res.Result.Value), nil
}

// storageServer serves /set, which sets a persistent and a session cookie
// and a localStorage item, and any other path as a plain page.
func storageServer(t *testing.T) string {
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		script := ""
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "persist", Value: "p1", MaxAge: 3600})
			http.SetCookie(w, &http.Cookie{Name: "sess", Value: "s1"})
			script = `<script>localStorage.setItem("cdpkitKey", "cdpkitStoredValue")</script>`
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>storage</title>"+script)
	}))
	return srv.URL
}

// waitLocalStorage waits until the profile's localStorage database holds
// value: Chromium batches localStorage writes to disk for a few seconds, and
// a write still in memory dies with a killed browser.
func waitLocalStorage(t *testing.T, profile, value string) {
	t.Helper()
	browsertest.Eventually(t, time.Minute, func() error {
		files, _ := filepath.Glob(filepath.Join(profile, "Default", "Local Storage", "leveldb", "*"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(value)) {
				return nil
			}
		}
		return fmt.Errorf("localStorage never reached the disk in %s", profile)
	})
}

// waitCookieSnapshot waits for the snapshot a call's release starts.
func waitCookieSnapshot(t *testing.T, m *Manager) {
	t.Helper()
	browsertest.Eventually(t, waitLimit, func() error {
		m.cookieMu.Lock()
		n := len(m.cookies)
		m.cookieMu.Unlock()
		if n > 0 && !m.saving.Load() {
			return nil
		}
		return errors.New("no cookie snapshot")
	})
}

// TestBrowserCrash kills a launched browser's process during a call: the
// call fails at once with ErrBrowserCrashed, and the next call starts a
// browser on the same profile, with the cookies, localStorage and viewport
// of before, and reports the reset once.
func TestBrowserCrash(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	tmp := privateTempDir(t)
	base := storageServer(t)
	m := NewManager(&Options{ExecPath: exe, tempDir: tmp})
	dm := driver.NewManager(m.Backend(), nil)
	defer dm.Close()

	release := dm.Use()
	b, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser: %v", err)
	}
	tab, err := b.Resolve(t.Context(), "")
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if _, err := tab.Navigate(t.Context(), base+"/set"); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	want := driver.Viewport{Width: 500, Height: 400, DeviceScaleFactor: 1}
	if _, err := tab.SetViewport(t.Context(), &want); err != nil {
		t.Fatalf("SetViewport: %v", err)
	}
	release()
	waitCookieSnapshot(t, m)
	profile := b.ProfileDir()
	waitLocalStorage(t, profile, "cdpkitStoredValue")

	// A call in flight when the browser dies fails with ErrBrowserCrashed,
	// not at its own deadline. (How soon is for make bench, not a test.)
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	pending := pendingEval(t, s)
	if err := sysproc.Kill(b.PID()); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if err := <-pending; !errors.Is(err, driver.ErrBrowserCrashed) {
		t.Errorf("pending call err = %v, want ErrBrowserCrashed", err)
	}
	if m.TakeReset() {
		t.Errorf("TakeReset before the restart = true, want false")
	}

	b2, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser after the crash: %v", err)
	}
	if b2 == b || b2.ProfileDir() != profile {
		t.Errorf("Browser after the crash = %p on %s, want a new browser on the same profile %s", b2, b2.ProfileDir(), profile)
	}
	if !m.TakeReset() {
		t.Errorf("first TakeReset after the restart = false, want true")
	}
	if m.TakeReset() {
		t.Errorf("second TakeReset after the restart = true, want false")
	}
	tab2, err := b2.Resolve(t.Context(), "")
	if err != nil {
		t.Fatalf("Resolve after the restart: %v", err)
	}
	if got := tab2.Emulation().Viewport; got == nil || *got != want {
		t.Errorf("viewport after the restart = %+v, want %+v", got, want)
	}
	if _, err := tab2.Navigate(t.Context(), base+"/get"); err != nil {
		t.Fatalf("Navigate after the restart: %v", err)
	}
	if m, err := tab2.MeasureViewport(t.Context()); err != nil || m.InnerWidth != want.Width || m.InnerHeight != want.Height {
		t.Errorf("page measures %+v, %v after the restart; want %d×%d", m, err, want.Width, want.Height)
	}
	got, err := evalString(t.Context(), tab2, `document.cookie + " | " + localStorage.getItem("cdpkitKey")`)
	if wantStore := `"persist=p1; sess=s1 | cdpkitStoredValue"`; err != nil || got != wantStore {
		t.Errorf("storage after the restart = %s, %v; want %s", got, err, wantStore)
	}

	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
	if left := profilesIn(t, tmp); len(left) > 0 {
		t.Errorf("profiles left after Close: %v", left)
	}
}

// TestRelaunchFails checks that a relaunch that cannot start fails with
// ErrNoBrowser and the reason, and that a later call tries again.
func TestRelaunchFails(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	tmp := privateTempDir(t)
	m := NewManager(&Options{ExecPath: exe, tempDir: tmp})
	defer m.Close()
	b, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser: %v", err)
	}
	sysproc.Kill(b.PID())
	<-b.Done()

	m.opts.ExecPath = "/bin/false" // the next relaunches cannot start
	start := time.Now()
	_, err = m.Browser(t.Context())
	var nb *driver.NoBrowserError
	if !errors.As(err, &nb) || nb.Reason == "" {
		t.Fatalf("Browser with a broken executable = %v, want a *NoBrowserError with a reason", err)
	}
	t.Logf("gave up after %v: %v", time.Since(start).Round(time.Millisecond), err)

	m.opts.ExecPath = exe
	b2, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser once the executable is back: %v", err)
	}
	if b2.ProfileDir() != b.ProfileDir() || !m.TakeReset() {
		t.Errorf("Browser once the executable is back: profile %s (want %s), reset %v (want true)", b2.ProfileDir(), b.ProfileDir(), !m.TakeReset())
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if left := profilesIn(t, tmp); len(left) > 0 {
		t.Errorf("profiles left after Close: %v", left)
	}
}

// TestIdleShutdown checks that the browser stops after the idle timeout,
// never during a call, and starts again on the next call.
func TestIdleShutdown(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	tmp := privateTempDir(t)
	const idle = 300 * time.Millisecond
	m := NewManager(&Options{ExecPath: exe, tempDir: tmp})
	dm := driver.NewManager(m.Backend(), &driver.ManagerOptions{IdleTimeout: idle})
	defer dm.Close()

	release := dm.Use()
	b, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser: %v", err)
	}
	profile := b.ProfileDir()
	// A call longer than the idle timeout is not interrupted. The sleep is
	// the behaviour under test: a call that outlasts the idle timeout.
	time.Sleep(3 * idle)
	if m.Current() != b {
		t.Fatalf("the browser stopped during a call")
	}
	if _, err := b.Pages(t.Context()); err != nil {
		t.Fatalf("Pages during the call: %v", err)
	}
	release()

	browsertest.Eventually(t, idle+waitLimit, func() error {
		if m.Current() != nil {
			return errors.New("the browser still runs after the last call")
		}
		return nil
	})
	browsertest.WaitNoProcesses(t, userDataDirArg(profile), browsertest.ProcWait)
	if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("profile after the idle shutdown: stat err = %v, want not exist", err)
	}

	release = dm.Use()
	b2, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser after the idle shutdown: %v", err)
	}
	if _, err := b2.Pages(t.Context()); err != nil {
		t.Errorf("Pages on the new browser: %v", err)
	}
	if !m.TakeReset() {
		t.Errorf("TakeReset after the idle restart = false, want true")
	}
	release()
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	browsertest.WaitNoProcesses(t, tmp, browsertest.ProcWait)
	if left := profilesIn(t, tmp); len(left) > 0 {
		t.Errorf("profiles left after Close: %v", left)
	}
}

// proxy forwards TCP connections to a DevTools port, and can drop them all
// and refuse new ones for a while.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	conns []net.Conn
	down  time.Time // refuse connections until then
}

func startProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.drop(0) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			refuse := time.Now().Before(p.down)
			p.mu.Unlock()
			if refuse {
				c.Close()
				continue
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

// drop closes every forwarded connection and refuses new ones for d.
func (p *proxy) drop(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.down = time.Now().Add(d)
}

// TestAttachReconnect drops the websocket to an attached browser: pending
// calls fail, and the next call reconnects to the same browser, waiting
// out a short outage with backoff.
func TestAttachReconnect(t *testing.T) {
	ext := startExternal(t)
	px := startProxy(t, "127.0.0.1:"+strconv.Itoa(ext.port))
	m := NewManager(&Options{WSEndpoint: "ws://" + px.ln.Addr().String() + ext.wsPath})
	defer m.Close()

	b, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser: %v", err)
	}
	tab, err := b.NewTab(t.Context())
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	const outage = 700 * time.Millisecond
	px.drop(outage)
	select {
	case <-b.Done():
	case <-time.After(waitLimit):
		t.Fatalf("the connection is not done %v after the drop", waitLimit)
	}
	if _, err := b.Pages(t.Context()); err == nil {
		t.Errorf("Pages on the dropped connection succeeded, want an error")
	}

	start := time.Now()
	b2, err := m.Browser(t.Context())
	if err != nil {
		t.Fatalf("Browser after the drop: %v", err)
	}
	t.Logf("reconnected after %v", time.Since(start).Round(time.Millisecond))
	if b2 == b {
		t.Errorf("Browser after the drop returned the dropped browser")
	}
	if _, err := b2.Resolve(t.Context(), string(tab.ID())); err != nil {
		t.Errorf("the tab opened before the drop: %v, want it in the same browser", err)
	}
	if m.TakeReset() {
		t.Errorf("TakeReset after a reconnect = true, want false: the browser kept its state")
	}
	if !ext.alive() {
		t.Errorf("the attached browser died")
	}
}
