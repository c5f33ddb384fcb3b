package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// clickAt dispatches a real left click at x, y.
func clickAt(ctx context.Context, s *cdp.Session, x, y float64) error {
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		if _, err := cdpapi.Call(ctx, s, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1,
		}); err != nil {
			return err
		}
	}
	return nil
}

// pageValue evaluates expr in the page and returns its JSON value.
func pageValue(t *testing.T, tab *Tab, expr string) string {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	r, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes})
	if err != nil || r.ExceptionDetails != nil {
		t.Fatalf("evaluating %s: %v %v", expr, err, r.ExceptionDetails)
	}
	return string(r.Result.Value)
}

// showDialog loads dialog-matrix.html so that it opens a dialog of typ
// when said, and returns the dialog once it waits for an answer (nil for
// one the policy answered).
func showDialog(t *testing.T, tab *Tab, base, typ, when string) *driver.Dialog {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	u := base + "/dialog-matrix.html?" + url.Values{"type": {typ}, "when": {when}, "msg": {typ + " from " + when}}.Encode()
	dl, err := tab.RunUntilDialog(ctx, func(ctx context.Context) error {
		if _, err := tab.Navigate(ctx, u); err != nil {
			return err
		}
		s, err := tab.session(ctx)
		if err != nil {
			return err
		}
		switch when {
		case "click":
			return clickAt(ctx, s, 120, 50)
		case "timer":
			// Wait for the timer's dialog, or for the page to show the
			// policy answered it.
			for {
				yes := true
				r, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "window.dialogResult !== undefined", ReturnByValue: &yes})
				if err != nil {
					return err
				}
				if string(r.Result.Value) == "true" {
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("opening a %s on %s: %v", typ, when, err)
	}
	return dl
}

func TestDialogMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (every dialog kind and answer): skipped by -short")
	}
	t.Parallel()
	srv := snapshotServer(t)
	tests := []struct {
		typ        string
		accept     bool
		promptText string
		want       string // window.dialogResult after the answer
	}{
		{typ: driver.DialogConfirm, accept: true, want: "true"},
		{typ: driver.DialogConfirm, accept: false, want: "false"},
		{typ: driver.DialogPrompt, accept: true, promptText: "typed answer", want: `"typed answer"`},
		{typ: driver.DialogPrompt, accept: true, want: `"default text"`},
		{typ: driver.DialogPrompt, accept: false, want: "null"},
	}
	for _, when := range []string{"load", "click", "timer"} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s on %s accept=%v %q", tt.typ, when, tt.accept, tt.promptText), func(t *testing.T) {
				_, tab := newTab(t)
				dl := showDialog(t, tab, srv.URL, tt.typ, when)
				want := driver.Dialog{Type: tt.typ, Message: tt.typ + " from " + when, Handled: driver.DialogOpen}
				if tt.typ == driver.DialogPrompt {
					want.DefaultPrompt = "default text"
				}
				if dl == nil || *dl != want {
					t.Fatalf("dialog = %+v, want %+v", dl, want)
				}

				// While it is open, page work says so at once.
				var de *driver.DialogOpenError
				if err := tab.CheckDialog(); !errors.As(err, &de) || de.Dialog != want {
					t.Errorf("CheckDialog = %v, want the open %s", err, tt.typ)
				}
				if note := tab.DialogNote(); note == nil || *note != want {
					t.Errorf("DialogNote = %+v, want the open dialog", note)
				}
				_, err := tab.Evaluate(t.Context(), "() => 1", nil, driver.EvalInline)
				if !errors.As(err, &de) || de.Dialog.Type != tt.typ {
					t.Errorf("Evaluate = %v, want DialogOpenError", err)
				}
				_, err = tab.WaitFor(t.Context(), driver.WaitCondition{Texts: []string{"never"}}, 5*time.Second)
				if !errors.As(err, &de) {
					t.Errorf("WaitFor = %v, want DialogOpenError", err)
				}

				got, err := tab.HandleDialog(t.Context(), tt.accept, tt.promptText)
				if err != nil {
					t.Fatalf("HandleDialog: %v", err)
				}
				if got.Handled != handledAs(tt.accept) || got.Message != want.Message {
					t.Errorf("HandleDialog = %+v, want it %s", got, handledAs(tt.accept))
				}
				if err := tab.CheckDialog(); err != nil {
					t.Errorf("CheckDialog after the answer = %v", err)
				}
				if r := pageValue(t, tab, "window.dialogResult"); r != tt.want {
					t.Errorf("the page got %s, want %s", r, tt.want)
				}
				if note := tab.DialogNote(); note != nil {
					t.Errorf("DialogNote after the agent's answer = %+v, want nil", note)
				}
			})
		}
		t.Run("alert on "+when, func(t *testing.T) {
			_, tab := newTab(t)
			if dl := showDialog(t, tab, srv.URL, driver.DialogAlert, when); dl != nil {
				t.Fatalf("the alert waits for an answer (%+v); the default policy accepts alerts", dl)
			}
			if err := tab.CheckDialog(); err != nil {
				t.Errorf("CheckDialog = %v, want nil", err)
			}
			want := driver.Dialog{Type: driver.DialogAlert, Message: "alert from " + when, Handled: driver.DialogAccepted}
			if note := tab.DialogNote(); note == nil || *note != want {
				t.Errorf("DialogNote = %+v, want %+v", note, want)
			}
			if note := tab.DialogNote(); note != nil {
				t.Errorf("second DialogNote = %+v, want nil: a note is reported once", note)
			}
			if r := pageValue(t, tab, "window.dialogResult"); r != `"undefined"` {
				t.Errorf("the page got %s after the alert, want \"undefined\"", r)
			}
		})
	}
}

func TestDialogPolicy(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	tests := []struct {
		policy driver.DialogPolicy
		typ    string
		want   string
	}{
		{driver.DialogsAccept, driver.DialogConfirm, "true"},
		{driver.DialogsAccept, driver.DialogPrompt, `"default text"`},
		{driver.DialogsAccept, driver.DialogAlert, `"undefined"`},
		{driver.DialogsDismiss, driver.DialogConfirm, "false"},
		{driver.DialogsDismiss, driver.DialogPrompt, "null"},
		{driver.DialogsDismiss, driver.DialogAlert, `"undefined"`},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy)+" "+tt.typ, func(t *testing.T) {
			_, tab := newTab(t)
			tab.SetDialogPolicy(tt.policy)
			if dl := showDialog(t, tab, srv.URL, tt.typ, "click"); dl != nil {
				t.Fatalf("the %s waits for an answer under policy %s", tt.typ, tt.policy)
			}
			if r := pageValue(t, tab, "window.dialogResult"); r != tt.want {
				t.Errorf("the page got %s, want %s", r, tt.want)
			}
			handled := driver.DialogAccepted
			if tt.policy == driver.DialogsDismiss {
				handled = driver.DialogDismissed
			}
			if note := tab.DialogNote(); note == nil || note.Type != tt.typ || note.Handled != handled {
				t.Errorf("DialogNote = %+v, want the %s %s", note, tt.typ, handled)
			}
		})
	}
}

func TestDialogNotesCountEarlier(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	pageValue(t, tab, "alert('one'), alert('two'), alert('three'), 0")
	want := driver.Dialog{Type: driver.DialogAlert, Message: "three", Handled: driver.DialogAccepted, Earlier: 2}
	if note := tab.DialogNote(); note == nil || *note != want {
		t.Errorf("DialogNote = %+v, want %+v", note, want)
	}
}

func TestHandleDialogNoneOpen(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.HandleDialog(t.Context(), true, ""); !errors.Is(err, driver.ErrNoDialog) {
		t.Errorf("HandleDialog on a fresh tab = %v, want ErrNoDialog", err)
	}
	if _, err := tab.Navigate(t.Context(), srv.URL+"/dialog-matrix.html"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.HandleDialog(t.Context(), false, ""); !errors.Is(err, driver.ErrNoDialog) {
		t.Errorf("HandleDialog with no dialog = %v, want ErrNoDialog", err)
	}
}

// TestHandleDialogWhileBlocked answers a dialog while the call that opened
// it is still blocked behind it.
func TestHandleDialogWhileBlocked(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/eval-values.html"); err != nil {
		t.Fatal(err)
	}
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	type reply struct {
		v   string
		err error
	}
	done := make(chan reply, 1)
	go func() {
		yes := true
		r, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: "confirm('proceed?')", ReturnByValue: &yes})
		if err != nil {
			done <- reply{err: err}
			return
		}
		done <- reply{v: string(r.Result.Value)}
	}()
	browsertest.Eventually(t, waitLimit, func() error {
		if tab.CheckDialog() == nil {
			return errors.New("the confirm never opened")
		}
		return nil
	})
	select {
	case r := <-done:
		t.Fatalf("the evaluate returned (%+v) while its confirm was open", r)
	default:
	}
	if _, err := tab.HandleDialog(t.Context(), true, ""); err != nil {
		t.Fatalf("HandleDialog: %v", err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.v != "true" {
			t.Errorf("the blocked evaluate returned %q, %v; want true", r.v, r.err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the blocked evaluate did not return after the answer")
	}
}

// TestBeforeUnloadNeverBlocks leaves and closes a page that asks before
// unloading, after a user gesture that arms the dialog.
func TestBeforeUnloadNeverBlocks(t *testing.T) {
	srv := snapshotServer(t)
	b, tab := newTab(t)
	tab.SetDialogPolicy(driver.DialogsDismiss) // beforeunload is accepted whatever the policy
	arm := func() {
		t.Helper()
		if _, err := tab.Navigate(t.Context(), srv.URL+"/dialog-beforeunload.html"); err != nil {
			t.Fatal(err)
		}
		s, err := tab.session(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := clickAt(t.Context(), s, 100, 100); err != nil {
			t.Fatal(err)
		}
		if got := pageValue(t, tab, "window.clicks"); got != "1" {
			t.Fatalf("clicks = %s, want 1", got)
		}
	}

	arm()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	start := time.Now()
	nav, err := tab.Navigate(ctx, srv.URL+"/eval-other.html")
	if err != nil {
		t.Fatalf("Navigate away from the beforeunload page: %v (after %v)", err, time.Since(start))
	}
	if nav.Title != "Other page" {
		t.Errorf("title = %q, want Other page", nav.Title)
	}
	if note := tab.DialogNote(); note == nil || note.Type != driver.DialogBeforeUnload || note.Handled != driver.DialogAccepted {
		t.Errorf("DialogNote = %+v, want an accepted beforeunload", note)
	}

	arm()
	start = time.Now()
	if err := b.CloseTab(ctx, tab); err != nil {
		t.Fatalf("CloseTab on the beforeunload page: %v (after %v)", err, time.Since(start))
	}
}

// TestRunUntilDialogClick clicks a button whose click opens a confirm: the
// mouse release is not answered until the dialog closes, yet the click
// returns at once with the dialog.
func TestRunUntilDialogClick(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+"/dialog-matrix.html?type=confirm&msg=sure"); err != nil {
		t.Fatal(err)
	}
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	dl, err := tab.RunUntilDialog(ctx, func(ctx context.Context) error { return clickAt(ctx, s, 120, 50) })
	if err != nil || dl == nil || dl.Type != driver.DialogConfirm || dl.Message != "sure" {
		t.Fatalf("RunUntilDialog = %+v, %v; want the confirm", dl, err)
	}
	if _, err := tab.HandleDialog(t.Context(), false, ""); err != nil {
		t.Fatal(err)
	}
	if r := pageValue(t, tab, "window.dialogResult"); r != "false" {
		t.Errorf("the page got %s, want false", r)
	}

	// Without a dialog, fn's own result comes back.
	boom := errors.New("boom")
	if dl, err := tab.RunUntilDialog(ctx, func(context.Context) error { return boom }); dl != nil || err != boom {
		t.Errorf("RunUntilDialog = %+v, %v; want no dialog and fn's error", dl, err)
	}
}

func TestParseDialogPolicy(t *testing.T) {
	tests := []struct {
		in   string
		want driver.DialogPolicy
		ok   bool
	}{
		{"", driver.DialogsReport, true},
		{"report", driver.DialogsReport, true},
		{"accept", driver.DialogsAccept, true},
		{"dismiss", driver.DialogsDismiss, true},
		{"Accept", "", false},
		{"ignore", "", false},
	}
	for _, tt := range tests {
		got, err := driver.ParseDialogPolicy(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseDialogPolicy(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
