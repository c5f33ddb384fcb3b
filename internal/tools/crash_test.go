package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/fixtures"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// TestCrashes crashes a tab's renderer and then the whole browser under
// the tools: each fault is reported with its code, not left to time out, and
// the next call succeeds.
func TestCrashes(t *testing.T) {
	t.Parallel()
	held := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(fixtures.Pages()))
	// /hold answers when the request ends, so a fetch of it keeps a call
	// pending; held says the fetch arrived.
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
		select {
		case held <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})
	srv := browsertest.ServerHandler(t, mux)
	// A browser of its own: the test crashes it.
	h := newHarness(t, &harnessOptions{Browser: &browser.Options{}})
	call := func(name, args string) (*Result, error) {
		t.Helper()
		return h.result(t, name, args)
	}
	mustCall := func(name, args string) *Result {
		t.Helper()
		res, err := call(name, args)
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return res
	}
	// Crashes are recoverable: the next call works.
	wantRecoverable := func(err error, code Code) {
		t.Helper()
		if te := wantCode(t, err, code, ""); !te.Recoverable {
			t.Errorf("error %v is not recoverable", te)
		}
	}
	pagesJSON := func() string {
		t.Helper()
		b, _ := json.Marshal(mustCall("list_pages", `{}`).Data)
		return string(b)
	}

	mustCall("navigate_page", `{"url":"`+srv.URL+`/nav-one.html"}`)
	mustCall("new_page", `{"url":"`+srv.URL+`/nav-two.html","background":true}`)

	t.Run("renderer", func(t *testing.T) {
		tab := h.tab(t, "")
		s, err := rawcdp.Session(t.Context(), tab)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		cdpapi.Call(ctx, s, page.Crash, cdpapi.Empty{}) // never answers
		cancel()
		browsertest.Eventually(t, 30*time.Second, func() error {
			if tab.CheckCrashed() == nil {
				return errors.New("the tab did not report its crash")
			}
			return nil
		})

		// Refused at once with TARGET_CRASHED, not left to time out.
		_, err = call("take_snapshot", `{"timeout_ms":20000}`)
		wantRecoverable(err, TargetCrashed)
		if got := pagesJSON(); strings.Count(got, `"crashed":true`) != 1 {
			t.Errorf("list_pages = %s, want exactly one page crashed", got)
		}
		if _, err := call("take_snapshot", `{"target":"url:nav-two"}`); err != nil {
			t.Errorf("take_snapshot on the other tab: %v", err)
		}
		mustCall("navigate_page", `{"type":"reload"}`)
		if _, err := call("take_snapshot", `{}`); err != nil {
			t.Errorf("take_snapshot after the reload: %v", err)
		}
		if got := pagesJSON(); strings.Contains(got, `"crashed"`) {
			t.Errorf("list_pages after the reload = %s, want no page crashed", got)
		}
	})

	t.Run("browser", func(t *testing.T) {
		b := h.browser(t)
		mustCall("resize_page", `{"width":600,"height":500}`)
		done := make(chan error, 1)
		go func() {
			_, err := h.callCtx(t.Context(), "evaluate_script", `{"function":"() => fetch('/hold').then(r => r.text())","timeout_ms":60000}`)
			done <- err
		}()
		select {
		case <-held: // the call is pending in the page
		case err := <-done:
			t.Fatalf("evaluate_script ended before its fetch arrived: %v", err)
		}
		if err := sysproc.Kill(b.PID()); err != nil {
			t.Fatal(err)
		}
		// BROWSER_CRASHED, not the TIMEOUT the call would reach without it.
		wantRecoverable(<-done, BrowserCrashed)
		res := mustCall("list_pages", `{}`)
		if !res.SessionReset {
			t.Errorf("first result after the restart has SessionReset false, want true")
		}
		if res := mustCall("take_snapshot", `{}`); res.SessionReset {
			t.Errorf("second result after the restart has SessionReset true, want false")
		}
		tab := h.tab(t, "")
		if m, err := tab.MeasureViewport(t.Context()); err != nil || m.InnerWidth != 600 || m.InnerHeight != 500 {
			t.Errorf("viewport after the restart = %+v, %v; want 600×500", m, err)
		}
	})
}
