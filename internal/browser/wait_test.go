package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

func TestWaitFor(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	tests := []struct {
		name string
		c    driver.WaitCondition
		want driver.WaitMatch
	}{
		{"text appears", driver.WaitCondition{Texts: []string{"Nope", "saved!"}}, driver.WaitMatch{Text: "saved!"}},
		{"text gone", driver.WaitCondition{TextGone: "Loading…"}, driver.WaitMatch{TextGone: "Loading…"}},
		{"selector visible", driver.WaitCondition{Selector: "#panel"}, driver.WaitMatch{Selector: "#panel", State: driver.StateVisible}},
		{"selector hidden", driver.WaitCondition{Selector: "#spinner", State: driver.StateHidden}, driver.WaitMatch{Selector: "#spinner", State: driver.StateHidden}},
		{"selector detached", driver.WaitCondition{Selector: "#temp", State: driver.StateDetached}, driver.WaitMatch{Selector: "#temp", State: driver.StateDetached}},
		{"url substring", driver.WaitCondition{URL: "/items/42"}, driver.WaitMatch{URL: "/items/42"}},
		{"url regex", driver.WaitCondition{URL: `/ITEMS\/\d+$/i`}, driver.WaitMatch{URL: "/items/42"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, tab := newTab(t)
			if _, err := tab.Navigate(t.Context(), srv.URL+"/wait-delayed.html"); err != nil {
				t.Fatal(err)
			}
			res, err := tab.WaitFor(t.Context(), tt.c, 5*time.Second)
			if err != nil {
				t.Fatalf("WaitFor: %v", err)
			}
			got := res.Matched
			if tt.want.URL != "" {
				if !strings.HasSuffix(got.URL, tt.want.URL) {
					t.Errorf("matched URL %q, want one ending in %q", got.URL, tt.want.URL)
				}
				got.URL = tt.want.URL
			}
			if got != tt.want {
				t.Errorf("matched %+v, want %+v", got, tt.want)
			}
			if res.ElapsedMs >= 5000 {
				t.Errorf("elapsedMs = %d, want it matched before the wait's own 5 s", res.ElapsedMs)
			}
		})
	}
}

func TestWaitForAlreadyTrue(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/wait-delayed.html?delay=60000"); err != nil {
		t.Fatal(err)
	}
	res, err := tab.WaitFor(t.Context(), driver.WaitCondition{Texts: []string{"LOADING"}, Selector: "#temp", State: driver.StateAttached}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The page changes only after 60 s: a match is of the state it was in.
	if res.Matched.Text != "LOADING" {
		t.Errorf("WaitFor = %+v, want the text already there", res)
	}
}

func TestWaitForTimeout(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/wait-delayed.html?delay=60000"); err != nil {
		t.Fatal(err)
	}
	// 3 s, not less: on a loaded machine a shorter wait ended before its
	// first look at the page, so it could not say "(it is hidden)".
	_, err := tab.WaitFor(t.Context(), driver.WaitCondition{Texts: []string{"Saved!"}, Selector: "#panel"}, 3*time.Second)
	var te *driver.WaitTimeoutError
	if !errors.As(err, &te) || !errors.Is(err, driver.ErrWaitTimeout) {
		t.Fatalf("WaitFor = %v, want a WaitTimeoutError", err)
	}
	want := []string{`none of the texts ["Saved!"] appeared`, `"#panel" is not visible (it is hidden)`}
	if strings.Join(te.Missing, "\n") != strings.Join(want, "\n") {
		t.Errorf("missing = %q, want %q", te.Missing, want)
	}
}

// TestWaitForAcrossNavigation waits for text on the page a link leads to.
func TestWaitForAcrossNavigation(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	pageValue(t, tab, "setTimeout(() => document.getElementById('away').click(), 300), 0")
	res, err := tab.WaitFor(t.Context(), driver.WaitCondition{Texts: []string{"You arrived"}}, 5*time.Second)
	if err != nil {
		t.Fatalf("WaitFor: %v", err)
	}
	if res.Matched.Text != "You arrived" {
		t.Errorf("matched %+v", res.Matched)
	}
}

func TestWaitForInvalid(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		c       driver.WaitCondition
		mention string
	}{
		{"nothing", driver.WaitCondition{Texts: []string{" "}}, "nothing to wait for"},
		{"bad state", driver.WaitCondition{Selector: "p", State: "shown"}, "shown"},
		{"bad selector", driver.WaitCondition{Selector: "p[", State: driver.StateAttached}, "does not parse"},
		{"bad regex", driver.WaitCondition{URL: "/a(/"}, "regular expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tab.WaitFor(t.Context(), tt.c, time.Second)
			if !errors.Is(err, driver.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("WaitFor = %v, want ErrInvalidArgument mentioning %q", err, tt.mention)
			}
		})
	}
}

// TestWaitForDialogOpens ends a wait when a confirm opens during it.
func TestWaitForDialogOpens(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/dialog-matrix.html?type=confirm&when=timer&delay=300&msg=sure"); err != nil {
		t.Fatal(err)
	}
	_, err := tab.WaitFor(t.Context(), driver.WaitCondition{Texts: []string{"never there"}}, 10*time.Second)
	var de *driver.DialogOpenError
	if !errors.As(err, &de) || de.Dialog.Type != driver.DialogConfirm || de.Dialog.Message != "sure" {
		t.Fatalf("WaitFor = %v, want the confirm as a DialogOpenError", err)
	}
	if _, err := tab.HandleDialog(t.Context(), true, ""); err != nil {
		t.Fatal(err)
	}
}

// TestWaitForHungPage keeps its timeout on a page whose script never
// yields.
func TestWaitForHungPage(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	// Busy for 30 s, or until the tab closes at the end of the test.
	pageValue(t, tab, "setTimeout(() => { const end = Date.now() + 30000; while (Date.now() < end) {} }, 100), 0")
	browsertest.Eventually(t, waitLimit, func() error {
		if !pageBusy(t, tab) {
			return errors.New("the page is not busy yet")
		}
		return nil
	})
	_, err := tab.WaitFor(t.Context(), driver.WaitCondition{Texts: []string{"never"}}, time.Second)
	if !errors.Is(err, driver.ErrWaitTimeout) {
		t.Errorf("WaitFor on a hung page = %v, want ErrWaitTimeout", err)
	}
	// WaitFor yielded at its own timeout, not when the page was free.
	if !pageBusy(t, tab) {
		t.Errorf("WaitFor returned once the page was no longer busy, want at its 1s timeout")
	}
}

// pageBusy reports whether tab's page is too busy to evaluate 1+1 within
// 300 ms.
func pageBusy(t *testing.T, tab *Tab) bool {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err = cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1"})
	return errors.Is(err, context.DeadlineExceeded)
}
