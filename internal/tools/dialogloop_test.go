package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// dialogLoopPages: a page that opens confirm dialogs without end, from
// its first script or from a click.
var dialogLoopPages = map[string]string{
	"loop":  `<!doctype html><title>loop</title><p>LOOP</p><script>for (;;) confirm("again?");</script>`,
	"click": `<!doctype html><title>click</title><button onclick="for (;;) confirm('again?')">storm</button>`,
	"calm":  `<!doctype html><title>calm</title><p>CALM</p>`,
}

// TestDialogLoopNeverWedges: a page that runs for(;;) confirm() gets
// DIALOG_OPEN at once (not a TIMEOUT), handle_dialog answers each dialog,
// and navigate_page leaves the page and recovers the tab; with
// --dialogs=accept or dismiss every call keeps pace with the loop.
func TestDialogLoopNeverWedges(t *testing.T) {
	t.Parallel()
	base := hostilePages(t, dialogLoopPages)
	const budget = 8 * time.Second
	call := func(t *testing.T, h *harness, tool, args string) (map[string]any, error) {
		t.Helper()
		args = strings.TrimSuffix(args, "}")
		if args != "{" {
			args += ","
		}
		args += fmt.Sprintf(`"timeout_ms":%d}`, budget.Milliseconds())
		start := time.Now()
		data, err := h.callCtx(t.Context(), tool, args)
		t.Logf("%s %s: %v in %v", tool, args, err, time.Since(start).Round(time.Millisecond))
		within(t, tool, start, budget)
		return data, err
	}

	// Each case has a scope (browser context) of its own, so they run in
	// parallel.
	t.Run("report", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, nil)
		_, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/loop"))
		if err != nil {
			wantCode(t, err, DialogOpen, "again?")
		}
		for range 3 {
			if _, err := call(t, h, "handle_dialog", `{"action":"dismiss"}`); err != nil {
				t.Fatalf("handle_dialog: %v", err)
			}
		}
		_, err = call(t, h, "take_snapshot", `{}`)
		wantCode(t, err, DialogOpen, "again?")
		if _, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/calm")); err != nil {
			t.Fatalf("navigate_page away from the loop: %v", err)
		}
		if text := h.mustCallText(t, "get_text", `{}`); !strings.Contains(text, "CALM") {
			t.Fatalf("get_text after leaving the loop = %s", text)
		}

		// A click that starts the storm.
		if _, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/click")); err != nil {
			t.Fatal(err)
		}
		data, err := call(t, h, "click", `{"selector":"button"}`)
		if err == nil {
			if d, _ := jsonPath(data, "changes.dialog.handled").(string); d != driver.DialogOpen {
				t.Errorf("click result = %v, want an open dialog reported", data)
			}
		} else {
			wantCode(t, err, DialogOpen, "again?")
		}
		if _, err := call(t, h, "handle_dialog", `{"action":"accept"}`); err != nil {
			t.Fatalf("handle_dialog: %v", err)
		}
		if _, err := call(t, h, "navigate_page", `{"type":"reload"}`); err != nil {
			t.Fatalf("reload out of the storm: %v", err)
		}
		if _, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/calm")); err != nil {
			t.Fatalf("navigate_page after the storm: %v", err)
		}
	})

	for _, policy := range []driver.DialogPolicy{driver.DialogsAccept, driver.DialogsDismiss} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil).with(func(env *Env) { env.DialogPolicy = policy })
			// The loop never lets the page load: cdpkit stops it rather
			// than wait for the deadline.
			_, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/loop"))
			wantCode(t, err, TargetCrashed, "dialogs in a loop")
			if _, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/calm")); err != nil {
				t.Fatalf("navigate_page away: %v", err)
			}
			// A storm started by a click, answered by the policy: the
			// click ends saying so as soon as cdpkit sees the loop, long
			// before its deadline (the browser answers the input only
			// after the page's handler, which never ends); handle_dialog
			// says the tab was stopped and how to recover it, and the next navigation
			// recovers the tab.
			if _, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/click")); err != nil {
				t.Fatal(err)
			}
			const long = time.Minute
			start := time.Now()
			_, err = h.callCtx(t.Context(), "click", fmt.Sprintf(`{"selector":"button","timeout_ms":%d}`, long.Milliseconds()))
			took := time.Since(start)
			t.Logf("click into the storm: %v in %v", err, took.Round(time.Millisecond))
			wantCode(t, err, TargetCrashed, "dialogs in a loop")
			if took >= long {
				t.Errorf("the click into the storm ended at its deadline (%v), not when the loop was seen", took)
			}
			_, err = call(t, h, "handle_dialog", `{"action":"accept"}`)
			if te := wantCode(t, err, TargetCrashed, ""); !strings.Contains(te.Hint, "navigate_page") {
				t.Errorf("handle_dialog on the stopped tab: hint %q, want it to say navigate_page recovers it", te.Hint)
			}
			if _, err := call(t, h, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/calm")); err != nil {
				t.Fatalf("navigate_page away from the storm: %v", err)
			}
			if text := h.mustCallText(t, "get_text", `{}`); !strings.Contains(text, "CALM") {
				t.Fatalf("get_text after the storm = %s", text)
			}
		})
	}
}
