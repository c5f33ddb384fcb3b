package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/fixtures"
)

// dialogTestEnv starts a browser Manager (launched on first use) with eval
// allowed and an artifact dir, and serves the fixture pages. It returns the
// env and the server's URL.
func dialogTestEnv(t *testing.T) (*Env, string) {
	t.Helper()
	srv := browsertest.Server(t, fixtures.Pages())
	env := browserEnv(t, nil)
	env.AllowEval = true
	return env, srv.URL
}

// runTool calls a tool and returns its data as decoded JSON.
func runTool(t *testing.T, env *Env, name, args string) (map[string]any, error) {
	t.Helper()
	i := -1
	all := All()
	for j, tl := range all {
		if tl.Name == name {
			i = j
		}
	}
	if i < 0 {
		t.Fatalf("no tool %s", name)
	}
	res, err := all[i].Call(t.Context(), env, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatalf("%s: encoding the result: %v", name, err)
	}
	t.Logf("%s %s → %s", name, args, raw)
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	return data, nil
}

// mustRun is runTool failing the test on an error.
func mustRun(t *testing.T, env *Env, name, args string) map[string]any {
	t.Helper()
	data, err := runTool(t, env, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return data
}

// wantCode checks that err is a tool error with code whose message
// contains mention.
func wantCode(t *testing.T, err error, code Code, mention string) *Error {
	t.Helper()
	var te *Error
	if !errors.As(err, &te) || te.Code != code || !strings.Contains(te.Message, mention) {
		t.Fatalf("error = %v, want %s mentioning %q", err, code, mention)
	}
	if te.Hint == "" {
		t.Errorf("error %v has no hint", te)
	}
	return te
}

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
	env, base := dialogTestEnv(t)
	open := func(t *testing.T, page string) {
		t.Helper()
		mustRun(t, env, "navigate_page", `{"url":"`+base+"/"+page+`"}`)
	}

	t.Run("none open", func(t *testing.T) {
		open(t, "dialog-matrix.html")
		_, err := runTool(t, env, "handle_dialog", `{"action":"accept"}`)
		wantCode(t, err, NoDialog, "no JavaScript dialog")
	})

	t.Run("confirm from a timer blocks page tools until answered", func(t *testing.T) {
		open(t, "dialog-matrix.html?type=confirm&when=timer&delay=200&msg=Delete%20it%3F")
		start := time.Now()
		_, err := runTool(t, env, "wait_for", `{"text":["never shown"],"timeout":10000}`)
		wantCode(t, err, DialogOpen, `a confirm dialog blocks the page: "Delete it?"`)
		_, err = runTool(t, env, "evaluate_script", `{"function":"() => 1"}`)
		wantCode(t, err, DialogOpen, "Delete it?")
		if d := time.Since(start); d > 200*time.Millisecond+4*time.Second {
			t.Errorf("the calls on the open dialog took %v", d)
		}
		data := mustRun(t, env, "handle_dialog", `{"action":"dismiss"}`)
		if got := jsonPath(data, "dialog.handled"); got != "dismissed" {
			t.Errorf("dialog.handled = %v, want dismissed", got)
		}
		if jsonPath(data, "changes") == nil {
			t.Error("handle_dialog has no changes section")
		}
		mustRun(t, env, "wait_for", `{"text":["confirm returned false"]}`)
	})

	t.Run("prompt text reaches the page", func(t *testing.T) {
		open(t, "dialog-matrix.html?type=prompt&when=timer&delay=200")
		_, err := runTool(t, env, "wait_for", `{"text":["never shown"]}`)
		wantCode(t, err, DialogOpen, "prompt")
		mustRun(t, env, "handle_dialog", `{"action":"accept","promptText":"Ada Lovelace"}`)
		mustRun(t, env, "wait_for", `{"text":["prompt returned \"Ada Lovelace\""]}`)
	})

	t.Run("alert is accepted and noted", func(t *testing.T) {
		nav := mustRun(t, env, "navigate_page", `{"url":"`+base+`/dialog-matrix.html?type=alert&when=timer&delay=200&msg=Saved"}`)
		data := mustRun(t, env, "wait_for", `{"text":["alert returned"]}`)
		// On a loaded machine navigate_page may return after the timer fired;
		// then it is the call that reports the handled alert.
		d := reportedDialog(data, nav)
		if d == nil || jsonPath(d, "type") != "alert" || jsonPath(d, "message") != "Saved" || jsonPath(d, "handled") != "accepted" {
			t.Errorf("dialog = %v, want the accepted alert", d)
		}
	})

	t.Run("policy dismiss", func(t *testing.T) {
		dismiss := *env
		dismiss.DialogPolicy = browser.DialogsDismiss
		nav := mustRun(t, &dismiss, "navigate_page", `{"url":"`+base+`/dialog-matrix.html?type=confirm&when=timer&delay=200"}`)
		data := mustRun(t, &dismiss, "wait_for", `{"text":["confirm returned"]}`)
		if jsonPath(data, "matched.text") != "confirm returned" || jsonPath(reportedDialog(data, nav), "handled") != "dismissed" {
			t.Errorf("wait_for = %v, want the confirm dismissed by the policy", data)
		}
		mustRun(t, &dismiss, "wait_for", `{"text":["confirm returned false"]}`)
	})

	t.Run("beforeunload never blocks navigate_page or close_page", func(t *testing.T) {
		b, err := env.Browsers.Browser(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		arm := func(t *testing.T) *browser.Tab {
			t.Helper()
			open(t, "dialog-beforeunload.html")
			tab, err := b.Resolve(t.Context(), "")
			if err != nil {
				t.Fatal(err)
			}
			s, err := tab.Session(t.Context())
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
		arm(t)
		start := time.Now()
		data := mustRun(t, env, "navigate_page", `{"url":"`+base+`/eval-other.html"}`)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("navigate_page took %v", d)
		}
		if !strings.HasSuffix(jsonPath(data, "url").(string), "/eval-other.html") {
			t.Errorf("navigate_page = %v, want eval-other.html", data)
		}
		mustRun(t, env, "new_page", `{}`) // close_page must leave a tab behind
		tab := arm(t)
		start = time.Now()
		mustRun(t, env, "close_page", `{"target":"`+string(tab.ID())+`"}`)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("close_page took %v", d)
		}
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
		{fmt.Errorf("evaluating: %w", &browser.DialogOpenError{Dialog: browser.Dialog{Type: "confirm", Message: "Delete?"}}),
			DialogOpen, `a confirm dialog blocks the page: "Delete?"`, true},
		{&browser.DialogOpenError{Dialog: browser.Dialog{Type: "alert", Message: long}},
			DialogOpen, `an alert dialog blocks the page: "` + strings.Repeat("x", maxDialogMessage) + `…"`, true},
		{fmt.Errorf("handling: %w", browser.ErrNoDialog), NoDialog, "no JavaScript dialog waits for an answer in this tab", false},
		{&browser.WaitTimeoutError{After: 5 * time.Second, Missing: []string{"a", "b"}}, Timeout, "waited 5000 ms: a; b", true},
		{&browser.EvalError{Message: "TypeError: x is not a function"}, EvalError, "TypeError: x is not a function", false},
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
