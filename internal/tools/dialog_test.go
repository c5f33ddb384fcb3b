package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// jsonPath returns data's value at a dotted path such as "changes.dialog".
func jsonPath(data map[string]any, path string) any {
	var v any = data
	for key := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[key]
	}
	return v
}

func TestDialogTools(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	// Each case runs in a tab (and browser context) of its own.
	open := func(t *testing.T, page string) *harness {
		t.Helper()
		t.Parallel()
		h := newHarness(t, nil)
		h.mustCall(t, "navigate_page", `{"url":"`+base+"/"+page+`"}`)
		return h
	}

	t.Run("none open", func(t *testing.T) {
		h := open(t, "dialog-matrix.html")
		_, err := h.call(t, "handle_dialog", `{"action":"accept"}`)
		wantCode(t, err, NoDialog, "no JavaScript dialog")
	})

	t.Run("confirm from a timer blocks page tools until answered", func(t *testing.T) {
		h := open(t, "dialog-matrix.html?type=confirm&when=timer&delay=200&msg=Delete%20it%3F")
		// DIALOG_OPEN, not the TIMEOUT of a call the dialog blocked.
		_, err := h.call(t, "wait_for", `{"text":["never shown"],"timeout":10000}`)
		wantCode(t, err, DialogOpen, `a confirm dialog blocks the page: "Delete it?"`)
		_, err = h.call(t, "evaluate_script", `{"function":"() => 1"}`)
		wantCode(t, err, DialogOpen, "Delete it?")
		data := h.mustCall(t, "handle_dialog", `{"action":"dismiss"}`)
		if got := jsonPath(data, "dialog.handled"); got != "dismissed" {
			t.Errorf("dialog.handled = %v, want dismissed", got)
		}
		if jsonPath(data, "changes") == nil {
			t.Error("handle_dialog has no changes section")
		}
		h.mustCall(t, "wait_for", `{"text":["confirm returned false"]}`)
	})

	t.Run("prompt text reaches the page", func(t *testing.T) {
		h := open(t, "dialog-matrix.html?type=prompt&when=timer&delay=200")
		_, err := h.call(t, "wait_for", `{"text":["never shown"]}`)
		wantCode(t, err, DialogOpen, "prompt")
		h.mustCall(t, "handle_dialog", `{"action":"accept","promptText":"Ada Lovelace"}`)
		h.mustCall(t, "wait_for", `{"text":["prompt returned \"Ada Lovelace\""]}`)
	})

	t.Run("alert is accepted and noted", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, nil)
		nav := h.mustCall(t, "navigate_page", `{"url":"`+base+`/dialog-matrix.html?type=alert&when=timer&delay=200&msg=Saved"}`)
		data := h.mustCall(t, "wait_for", `{"text":["alert returned"]}`)
		// On a loaded machine navigate_page may return after the timer fired;
		// then it is the call that reports the handled alert.
		d := reportedDialog(data, nav)
		if d == nil || jsonPath(d, "type") != "alert" || jsonPath(d, "message") != "Saved" || jsonPath(d, "handled") != "accepted" {
			t.Errorf("dialog = %v, want the accepted alert", d)
		}
	})

	t.Run("policy dismiss", func(t *testing.T) {
		t.Parallel()
		dismiss := newHarness(t, nil).with(func(env *Env) { env.DialogPolicy = driver.DialogsDismiss })
		nav := dismiss.mustCall(t, "navigate_page", `{"url":"`+base+`/dialog-matrix.html?type=confirm&when=timer&delay=200"}`)
		data := dismiss.mustCall(t, "wait_for", `{"text":["confirm returned"]}`)
		if jsonPath(data, "matched.text") != "confirm returned" || jsonPath(reportedDialog(data, nav), "handled") != "dismissed" {
			t.Errorf("wait_for = %v, want the confirm dismissed by the policy", data)
		}
		dismiss.mustCall(t, "wait_for", `{"text":["confirm returned false"]}`)
	})

	t.Run("beforeunload never blocks navigate_page or close_page", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, nil)
		arm := func(t *testing.T) *browser.Tab {
			t.Helper()
			h.mustCall(t, "navigate_page", `{"url":"`+base+`/dialog-beforeunload.html"}`)
			tab := h.tab(t, "")
			s, err := rawcdp.Session(t.Context(), tab)
			if err != nil {
				t.Fatal(err)
			}
			for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
				if _, err := cdpapi.Call(t.Context(), s, input.DispatchMouseEvent, input.DispatchMouseEventParams{
					Type: typ, X: 100, Y: 100, Button: input.MouseButtonLeft, ClickCount: 1,
				}); err != nil {
					t.Fatal(err)
				}
			}
			return tab
		}
		// A beforeunload dialog that blocked would end these calls with
		// TIMEOUT, or DIALOG_OPEN.
		arm(t)
		data := h.mustCall(t, "navigate_page", `{"url":"`+base+`/eval-other.html"}`)
		if !strings.HasSuffix(jsonPath(data, "url").(string), "/eval-other.html") {
			t.Errorf("navigate_page = %v, want eval-other.html", data)
		}
		h.mustCall(t, "new_page", `{}`) // close_page must leave a tab behind
		tab := arm(t)
		h.mustCall(t, "close_page", `{"target":"`+string(tab.ID())+`"}`)
	})
}

func TestDialogWaitEvalErrors(t *testing.T) {
	long := strings.Repeat("x", 1000)
	tests := []struct {
		err         error
		code        Code
		message     string
		recoverable bool
	}{
		{fmt.Errorf("evaluating: %w", &driver.DialogOpenError{Dialog: driver.Dialog{Type: "confirm", Message: "Delete?"}}),
			DialogOpen, `a confirm dialog blocks the page: "Delete?"`, true},
		{&driver.DialogOpenError{Dialog: driver.Dialog{Type: "alert", Message: long}},
			DialogOpen, `an alert dialog blocks the page: "` + strings.Repeat("x", maxDialogMessage) + `…"`, true},
		{fmt.Errorf("handling: %w", driver.ErrNoDialog), NoDialog, "no JavaScript dialog waits for an answer in this tab", false},
		{&driver.WaitTimeoutError{After: 5 * time.Second, Missing: []string{"a", "b"}}, Timeout, "waited 5000 ms: a; b", true},
		{&driver.EvalError{Message: "TypeError: x is not a function"}, EvalError, "TypeError: x is not a function", false},
	}
	for _, tt := range tests {
		got := AsError(tt.err)
		if got.Code != tt.code || got.Message != tt.message || got.Recoverable != tt.recoverable || got.Hint == "" {
			t.Errorf("AsError(%v) = %+v, want %s %q recoverable=%v with a hint", tt.err, got, tt.code, tt.message, tt.recoverable)
		}
	}
}

// reportedDialog returns the dialog the first of results reports, at the
// top level or in its changes, or nil.
func reportedDialog(results ...map[string]any) map[string]any {
	for _, r := range results {
		for _, path := range []string{"dialog", "changes.dialog"} {
			if d, ok := jsonPath(r, path).(map[string]any); ok {
				return d
			}
		}
	}
	return nil
}
