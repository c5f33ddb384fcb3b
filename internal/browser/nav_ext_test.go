package browser

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/cdp/cdptest"
	"github.com/cdpkit/cdpkit/internal/driver"
	fixturepages "github.com/cdpkit/cdpkit/internal/fixtures"
)

// navServer serves the fixture pages and a few handlers for what files
// cannot do. It is reachable as URL (127.0.0.1) and as cross (localhost),
// another site, so Chromium loads pages of the two in different processes.
//
//	/nav-slow.png?ms=N  a 1×1 PNG after N ms
//	/nav-late?ms=N      "ok" after N ms
//	/nav-count?code=N   a page counting its loads, uncacheable, with status N (200)
//	/echo               a page; the request's headers are recorded
//
// Every request's Cache-Control and headers are recorded too.
type navServer struct {
	*httptest.Server
	cross string

	mu      sync.Mutex
	count   int         // guarded by mu; loads of /nav-count
	headers http.Header // guarded by mu; of the last /nav-count or /echo request
}

func serveNav(t *testing.T) *navServer {
	t.Helper()
	done := make(chan struct{})
	ns := &navServer{}
	delay := func(r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
		case <-done:
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(fixturepages.Pages(), strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/nav-slow.png", func(w http.ResponseWriter, r *http.Request) {
		delay(r)
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Cache-Control", "no-store")
		png.Encode(w, image.NewGray(image.Rect(0, 0, 1, 1)))
	})
	mux.HandleFunc("/nav-late", func(w http.ResponseWriter, r *http.Request) {
		delay(r)
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("/nav-count", func(w http.ResponseWriter, r *http.Request) {
		ns.mu.Lock()
		ns.count++
		n := ns.count
		ns.headers = r.Header.Clone()
		ns.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if code, _ := strconv.Atoi(r.URL.Query().Get("code")); code != 0 {
			w.WriteHeader(code)
		}
		w.Write([]byte("<!doctype html><title>Count " + strconv.Itoa(n) + "</title><p>counted"))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		ns.mu.Lock()
		ns.headers = r.Header.Clone()
		ns.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Echo</title><p>echo"))
	})
	ns.Server = browsertest.ServerHandler(t, mux)
	// Runs before the server's Close, which waits for delayed handlers.
	t.Cleanup(func() { close(done) })
	_, port, _ := net.SplitHostPort(ns.Listener.Addr().String())
	ns.cross = "http://localhost:" + port
	return ns
}

// lastHeaders returns the headers of the last /nav-count or /echo request.
func (ns *navServer) lastHeaders() http.Header {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return ns.headers
}

// navEval evaluates expr (awaiting a promise) and decodes its value into v.
func navEval(t *testing.T, tab *Tab, expr string, v any) {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	yes := true
	res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes, UserGesture: &yes})
	if err != nil {
		t.Fatalf("Evaluate(%s): %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("Evaluate(%s) threw: %s", expr, res.ExceptionDetails.Text)
	}
	if v != nil {
		if err := json.Unmarshal(res.Result.Value, v); err != nil {
			t.Fatalf("Evaluate(%s) = %s: %v", expr, res.Result.Value, err)
		}
	}
}

func navString(t *testing.T, tab *Tab, expr string) string {
	t.Helper()
	var s string
	navEval(t, tab, expr, &s)
	return s
}

// mustNav navigates and fails the test on error.
func mustNav(t *testing.T, tab *Tab, url string, o *driver.NavOptions) *driver.NavResult {
	t.Helper()
	res, err := tab.NavigateWith(t.Context(), url, o)
	if err != nil {
		t.Fatalf("NavigateWith(%s, %+v): %v", url, o, err)
	}
	return res
}

func TestBackForwardReload(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)
	one, two := srv.URL+"/nav-one.html", srv.URL+"/nav-two.html"
	mustNav(t, tab, one, nil)
	mustNav(t, tab, two, nil)

	steps := []struct {
		name      string
		do        func(ctx context.Context) (*driver.NavResult, error)
		wantURL   string
		wantTitle string
	}{
		{"back", func(ctx context.Context) (*driver.NavResult, error) { return tab.GoBack(ctx, nil) }, one, "One"},
		{"forward", func(ctx context.Context) (*driver.NavResult, error) { return tab.GoForward(ctx, nil) }, two, "Two"},
		{"back again", func(ctx context.Context) (*driver.NavResult, error) { return tab.GoBack(ctx, nil) }, one, "One"},
		{"reload", func(ctx context.Context) (*driver.NavResult, error) { return tab.Reload(ctx, false, nil) }, one, "One"},
		{"forward after reload", func(ctx context.Context) (*driver.NavResult, error) { return tab.GoForward(ctx, nil) }, two, "Two"},
	}
	for _, st := range steps {
		ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
		got, err := st.do(ctx)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		t.Logf("%s = %+v", st.name, *got)
		if got.URL != st.wantURL || got.Title != st.wantTitle {
			t.Errorf("%s = %+v, want %s %q", st.name, *got, st.wantURL, st.wantTitle)
		}
		if h1 := navString(t, tab, "document.querySelector('h1').textContent"); h1 != st.wantTitle {
			t.Errorf("after %s the page shows %q, want %q", st.name, h1, st.wantTitle)
		}
	}

	// Chromium keeps no page of an HTTP error in the back/forward cache:
	// going back to it loads it again.
	mustNav(t, tab, srv.URL+"/nav-count?code=404", nil)
	mustNav(t, tab, two, nil)
	got, err := tab.GoBack(t.Context(), nil)
	if err != nil {
		t.Fatalf("back to /nav-count: %v", err)
	}
	if got.Title != "Count 2" || got.Status != 404 {
		t.Errorf("back to /nav-count = %+v, want it loaded again: title Count 2, status 404", *got)
	}
	if _, err := tab.GoForward(t.Context(), nil); err != nil {
		t.Fatalf("forward to two: %v", err)
	}

	_, err = tab.GoForward(t.Context(), nil)
	var he *driver.HistoryEndError
	if !errors.As(err, &he) || !he.Forward || !errors.Is(err, driver.ErrNoHistoryEntry) {
		t.Errorf("GoForward at the end = %v, want a forward *HistoryEndError", err)
	}
	// The tab's history starts at about:blank.
	for range 6 {
		if _, err = tab.GoBack(t.Context(), nil); err != nil {
			break
		}
	}
	if !errors.As(err, &he) || he.Forward {
		t.Errorf("GoBack past the start = %v, want a back *HistoryEndError", err)
	}
}

func TestReloadIgnoreCache(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)
	first := mustNav(t, tab, srv.URL+"/nav-count", nil)
	if first.Title != "Count 1" || first.Status != 200 {
		t.Fatalf("first load = %+v, want title Count 1, status 200", *first)
	}
	tests := []struct {
		ignoreCache bool
		wantTitle   string
		wantHeader  string // Cache-Control of the reload's request
	}{
		{false, "Count 2", "max-age=0"},
		{true, "Count 3", "no-cache"},
	}
	for _, tt := range tests {
		got, err := tab.Reload(t.Context(), tt.ignoreCache, nil)
		if err != nil {
			t.Fatalf("Reload(ignoreCache %v): %v", tt.ignoreCache, err)
		}
		if got.Title != tt.wantTitle || got.Status != 200 || got.URL != srv.URL+"/nav-count" {
			t.Errorf("Reload(ignoreCache %v) = %+v, want title %q, status 200", tt.ignoreCache, *got, tt.wantTitle)
		}
		if h := srv.lastHeaders().Get("Cache-Control"); h != tt.wantHeader {
			t.Errorf("Reload(ignoreCache %v) sent Cache-Control %q, want %q", tt.ignoreCache, h, tt.wantHeader)
		}
	}
}

// TestHashRouter navigates a hash router while the document's own load is
// still pending (its image arrives after 15 s): fragment changes and
// history moves between them commit at once, without a load event.
func TestHashRouter(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)
	page := srv.URL + "/nav-router.html"
	mustNav(t, tab, page, &driver.NavOptions{WaitUntil: driver.WaitDOMContentLoaded})

	// Well under the 15 s the page's load takes, and more than the
	// navigations need even on a loaded machine.
	const prompt = 5 * time.Second
	steps := []struct {
		name     string
		do       func(ctx context.Context) (*driver.NavResult, error)
		wantURL  string
		wantView string
	}{
		{"#/a", func(ctx context.Context) (*driver.NavResult, error) { return tab.Navigate(ctx, page+"#/a") }, page + "#/a", "View a"},
		{"#/b", func(ctx context.Context) (*driver.NavResult, error) { return tab.Navigate(ctx, page+"#/b") }, page + "#/b", "View b"},
		{"back", func(ctx context.Context) (*driver.NavResult, error) { return tab.GoBack(ctx, nil) }, page + "#/a", "View a"},
		{"back to no fragment", func(ctx context.Context) (*driver.NavResult, error) { return tab.GoBack(ctx, nil) }, page, "Home"},
		{"forward", func(ctx context.Context) (*driver.NavResult, error) { return tab.GoForward(ctx, nil) }, page + "#/a", "View a"},
		{"#/b again, waiting for networkidle", func(ctx context.Context) (*driver.NavResult, error) {
			return tab.NavigateWith(ctx, page+"#/b", &driver.NavOptions{WaitUntil: driver.WaitNetworkIdle})
		}, page + "#/b", "View b"},
	}
	for _, st := range steps {
		ctx, cancel := context.WithTimeout(t.Context(), prompt)
		start := time.Now()
		got, err := st.do(ctx)
		took := time.Since(start)
		cancel()
		if err != nil {
			t.Fatalf("%s: after %v: %v", st.name, took, err)
		}
		if got.URL != st.wantURL || got.Title != "Router" || got.Status != 0 {
			t.Errorf("%s = %+v, want URL %s, title Router, status 0", st.name, *got, st.wantURL)
		}
		if v := navString(t, tab, "document.getElementById('view').textContent"); v != st.wantView {
			t.Errorf("after %s the view is %q, want %q", st.name, v, st.wantView)
		}
	}
	if rs := navString(t, tab, "document.readyState"); rs == "complete" {
		t.Errorf("the page finished loading during the test; the hash navigations were not tested before its load")
	}
}

func TestWaitUntil(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)

	// The image comes 3 s after the request: DOMContentLoaded is long
	// before the load.
	mustNav(t, tab, srv.URL+"/nav-slow.html", &driver.NavOptions{WaitUntil: driver.WaitDOMContentLoaded})
	if rs := navString(t, tab, "document.readyState"); rs != "interactive" {
		t.Errorf("after waiting for domcontentloaded readyState = %q, want interactive (the image still loading)", rs)
	}

	// networkidle includes the fetch the page starts 500 ms after its load.
	got := mustNav(t, tab, srv.URL+"/nav-idle.html", &driver.NavOptions{WaitUntil: driver.WaitNetworkIdle})
	if got.Title != "Late fetch" || got.Status != 200 {
		t.Errorf("NavigateWith(networkidle) = %+v, want title Late fetch, status 200", *got)
	}
	var fetched bool
	navEval(t, tab, "window.fetched === true", &fetched)
	if !fetched {
		t.Errorf("after waiting for networkidle the page's late fetch has not completed")
	}

	// And a reload, which learns its loader from its events.
	if _, err := tab.Reload(t.Context(), false, &driver.NavOptions{WaitUntil: driver.WaitNetworkIdle}); err != nil {
		t.Fatalf("Reload(networkidle): %v", err)
	}
	if navEval(t, tab, "window.fetched === true", &fetched); !fetched {
		t.Errorf("after reloading with networkidle the page's late fetch has not completed")
	}
}

func TestParseWaitUntil(t *testing.T) {
	tests := []struct {
		in      string
		want    driver.WaitUntil
		wantErr bool
	}{
		{"", driver.WaitLoad, false},
		{"load", driver.WaitLoad, false},
		{"domcontentloaded", driver.WaitDOMContentLoaded, false},
		{"DOMContentLoaded", driver.WaitDOMContentLoaded, false},
		{"networkidle", driver.WaitNetworkIdle, false},
		{"networkidle0", "", true},
		{"commit", "", true},
	}
	for _, tt := range tests {
		got, err := driver.ParseWaitUntil(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseWaitUntil(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, driver.ErrInvalidArgument) {
			t.Errorf("ParseWaitUntil(%q) error %v does not wrap ErrInvalidArgument", tt.in, err)
		}
	}
}

func TestFragmentOnly(t *testing.T) {
	tests := []struct {
		from, to string
		want     bool
	}{
		{"http://h/p", "http://h/p#a", true},
		{"http://h/p#a", "http://h/p#b", true},
		{"http://h/p#a", "http://h/p#a", true},
		{"http://h/p#/a", "http://h/p#/b", true},
		{"http://h/", "http://h#a", true},
		{"http://H/p", "http://h/p#a", true},
		{"http://h/p#a", "http://h/p", false}, // dropping the fragment loads again
		{"http://h/p", "http://h/q#a", false},
		{"http://h/p?x=1", "http://h/p?x=2#a", false},
		{"http://h/p", "https://h/p#a", false},
		{"about:blank", "about:blank#a", true},
		{"", "http://h/p#a", false},
	}
	for _, tt := range tests {
		if got := fragmentOnly(tt.from, tt.to); got != tt.want {
			t.Errorf("fragmentOnly(%q, %q) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

// TestNavigationWaitFake drives the wait of reloads and history moves with
// scripted events.
func TestNavigationWaitFake(t *testing.T) {
	const frame, old = "F", "OLD"
	docReq := func(id, loader string) network.EventRequestWillBeSent {
		return network.EventRequestWillBeSent{RequestID: network.RequestID(id), LoaderID: cdpapi.LoaderID(loader), FrameID: frame, Type: network.ResourceTypeDocument}
	}
	tests := []struct {
		name       string
		n          navigation
		events     func(s *cdptest.Session)
		wantStatus int
		wantErr    error
	}{
		{
			name: "reload learns its loader from init, ignoring the old document",
			n:    navigation{frame: frame, old: old, want: []string{"load"}},
			events: func(s *cdptest.Session) {
				s.Emit("Page.lifecycleEvent", lifecycle(old, frame, "networkIdle"))
				s.Emit("Page.lifecycleEvent", lifecycle(old, frame, "load"))
				s.Emit("Network.responseReceived", response("NEW", network.ResourceTypeDocument, 203))
				s.Emit("Page.lifecycleEvent", lifecycle("NEW", "CHILD", "init"))
				s.Emit("Page.lifecycleEvent", lifecycle("NEW", frame, "init"))
				s.Emit("Page.lifecycleEvent", lifecycle("NEW", frame, "load"))
			},
			wantStatus: 203,
		},
		{
			name: "networkidle needs load and networkIdle",
			n:    navigation{frame: frame, loader: "L", want: []string{"load", "networkIdle"}},
			events: func(s *cdptest.Session) {
				s.Emit("Page.lifecycleEvent", lifecycle("L", frame, "networkIdle"))
				s.Emit("Page.lifecycleEvent", lifecycle("L", frame, "DOMContentLoaded"))
				s.Emit("Page.lifecycleEvent", lifecycle("L", frame, "load"))
			},
		},
		{
			name: "networkidle is not done at load",
			n:    navigation{frame: frame, loader: "L", want: []string{"load", "networkIdle"}},
			events: func(s *cdptest.Session) {
				s.Emit("Page.lifecycleEvent", lifecycle("L", frame, "load"))
			},
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "history within the document",
			n:    navigation{frame: frame, old: old, history: true, want: []string{"load"}},
			events: func(s *cdptest.Session) {
				s.Emit("Page.navigatedWithinDocument", page.EventNavigatedWithinDocument{FrameID: "CHILD"})
				s.Emit("Page.navigatedWithinDocument", page.EventNavigatedWithinDocument{FrameID: frame})
			},
		},
		{
			name: "history restored from the back/forward cache",
			n:    navigation{frame: frame, old: old, history: true, want: []string{"load"}},
			events: func(s *cdptest.Session) {
				s.Emit("Page.frameNavigated", page.EventFrameNavigated{Frame: &cdpapi.Frame{ID: frame, LoaderID: "EARLIER"}, Type: page.NavigationTypeBackForwardCacheRestore})
			},
		},
		{
			name: "a reload is not done by a same-document navigation",
			n:    navigation{frame: frame, old: old, want: []string{"load"}},
			events: func(s *cdptest.Session) {
				s.Emit("Page.navigatedWithinDocument", page.EventNavigatedWithinDocument{FrameID: frame})
			},
			wantErr: context.DeadlineExceeded,
		},
		{
			name: "the document request fails",
			n:    navigation{url: "http://x/", frame: frame, old: old, want: []string{"load"}},
			events: func(s *cdptest.Session) {
				s.Emit("Network.requestWillBeSent", docReq("R0", old))
				s.Emit("Network.loadingFailed", network.EventLoadingFailed{RequestID: "R0", ErrorText: "net::ERR_ABORTED"})
				s.Emit("Network.requestWillBeSent", docReq("R1", "NEW"))
				s.Emit("Network.loadingFailed", network.EventLoadingFailed{RequestID: "R1", ErrorText: "net::ERR_INTERNET_DISCONNECTED"})
			},
			wantErr: driver.ErrNavigationFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cdptest.New()
			events, stop := s.SubscribeEvents(navEvents...)
			defer stop()
			tt.events(s)
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			n := tt.n
			status, err := n.wait(ctx, events)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("wait = %d, %v; want %v", status, err, tt.wantErr)
				}
				var ne *driver.NavigationError
				if errors.As(err, &ne) && (ne.Text != "net::ERR_INTERNET_DISCONNECTED" || ne.URL != "http://x/") {
					t.Errorf("NavigationError = %+v, want the new document's error and URL", *ne)
				}
				return
			}
			if err != nil || status != tt.wantStatus {
				t.Fatalf("wait = %d, %v; want %d", status, err, tt.wantStatus)
			}
		})
	}
}

// TestNavigateOffline checks that a navigation the network refuses is a
// NavigationError with Chromium's text, for a URL and for a reload.
func TestNavigateOffline(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)
	mustNav(t, tab, srv.URL+"/nav-one.html", nil)
	offline, none := "offline", "none"
	if _, err := tab.Emulate(t.Context(), driver.EmulationChange{Network: &offline}); err != nil {
		t.Fatalf("Emulate(offline): %v", err)
	}
	_, navErr := tab.Navigate(t.Context(), srv.URL+"/nav-two.html")
	// The error page has replaced the document when Navigate returns.
	if loc, err := tab.Location(t.Context()); err != nil || loc.URL != srv.URL+"/nav-two.html" {
		t.Errorf("Location after the failed navigation = %+v, %v; want its error page, at %s/nav-two.html", loc, err, srv.URL)
	}
	_, reloadErr := tab.Reload(t.Context(), false, nil)
	if _, err := tab.Emulate(t.Context(), driver.EmulationChange{Network: &none}); err != nil {
		t.Fatalf("Emulate(none): %v", err)
	}
	for what, err := range map[string]error{"Navigate": navErr, "Reload": reloadErr} {
		var ne *driver.NavigationError
		if !errors.As(err, &ne) || !strings.Contains(ne.Text, "ERR_INTERNET_DISCONNECTED") || ne.URL != srv.URL+"/nav-two.html" {
			t.Errorf("%s offline = %v, want a NavigationError for %s/nav-two.html with ERR_INTERNET_DISCONNECTED", what, err, srv.URL)
		}
	}
	if got := mustNav(t, tab, srv.URL+"/nav-two.html", nil); got.Title != "Two" {
		t.Errorf("Navigate back online = %+v, want title Two", *got)
	}
}

// TestErrorPageStays: an error page does not reload itself. Chromium's
// auto-reload (about 1 s after the error page, then 5 s, ...) started
// navigations of its own that raced with the agent's: a reload that met
// one failed with ERR_ABORTED (TestNavigateOffline, on a loaded machine).
func TestErrorPageStays(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)
	mustNav(t, tab, srv.URL+"/nav-one.html", nil)
	offline := "offline"
	if _, err := tab.Emulate(t.Context(), driver.EmulationChange{Network: &offline}); err != nil {
		t.Fatalf("Emulate(offline): %v", err)
	}
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Navigate(t.Context(), srv.URL+"/nav-two.html"); err == nil {
		t.Fatal("Navigate offline succeeded")
	}
	navs, stop := s.SubscribeEvents("Page.frameStartedNavigating")
	defer stop()
	// The timer under test: Chromium's first auto-reload fires about 1 s
	// after the error page; 3 s would have seen it.
	select {
	case ev := <-navs:
		t.Errorf("the error page navigated by itself: %s", ev.Params)
	case <-time.After(3 * time.Second):
	}
}
