package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/fixtures"
)

// TestCrashes crashes a tab's renderer and then the whole browser under
// the tools: each fault is reported with its code within its deadline plus
// a second, and the next call succeeds.
func TestCrashes(t *testing.T) {
	srv := browsertest.ServerHandler(t, http.FileServerFS(fixtures.Pages()))
	env := browserEnv(t, nil)
	tools := map[string]Tool{}
	for _, tl := range All() {
		tools[tl.Name] = tl
	}
	call := func(name, args string) (*Result, error) {
		t.Helper()
		tool := tools[name]
		return tool.Call(t.Context(), env, json.RawMessage(args))
	}
	mustCall := func(name, args string) *Result {
		t.Helper()
		res, err := call(name, args)
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return res
	}
	wantCode := func(err error, code Code) {
		t.Helper()
		var te *Error
		if !errors.As(err, &te) || te.Code != code || !te.Recoverable || te.Hint == "" {
			t.Fatalf("error = %v, want a recoverable %s with a hint", err, code)
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
		b, err := env.Browsers.Browser(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		tab, err := b.Resolve(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		s, err := tab.Session(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		cdpapi.Call(ctx, s, page.Crash, cdpapi.Empty{}) // never answers
		cancel()
		for deadline := time.Now().Add(10 * time.Second); tab.CheckCrashed() == nil; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the tab did not report its crash")
			}
		}

		start := time.Now()
		_, err = call("take_snapshot", `{}`)
		wantCode(err, TargetCrashed)
		if took := time.Since(start); took > time.Second {
			t.Errorf("take_snapshot on the crashed tab took %v, want it refused at once", took)
		}
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
		b, err := env.Browsers.Browser(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		mustCall("resize_page", `{"width":600,"height":500}`)
		done := make(chan error, 1)
		go func() {
			_, err := call("wait_for", `{"text":["never there"],"timeout":20000}`)
			done <- err
		}()
		time.Sleep(200 * time.Millisecond)
		killed := time.Now()
		if err := syscall.Kill(b.PID(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			wantCode(err, BrowserCrashed)
			if took := time.Since(killed); took > 100*time.Millisecond+time.Second {
				t.Errorf("the pending call failed %v after the kill, want within 100ms + 1s", took)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the pending call did not end")
		}
		res := mustCall("list_pages", `{}`)
		if !res.SessionReset {
			t.Errorf("first result after the restart has SessionReset false, want true")
		}
		if res := mustCall("take_snapshot", `{}`); res.SessionReset {
			t.Errorf("second result after the restart has SessionReset true, want false")
		}
		b2, err := env.Browsers.Browser(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		tab, err := b2.Resolve(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		if m, err := tab.MeasureViewport(t.Context()); err != nil || m.InnerWidth != 600 || m.InnerHeight != 500 {
			t.Errorf("viewport after the restart = %+v, %v; want 600×500", m, err)
		}
	})
}
