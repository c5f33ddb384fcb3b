package browser

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/input"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

func TestTypeText(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-keys.html")
	tests := []string{
		"hello",
		"héllo wörld",
		"שלום עולם",
		"👋🏽 and 👨‍👩‍👧",
		"日本語のテキスト",
		`'); alert(1); ('` + "\"<b>&amp;`${x}`\\",
	}
	defer formsNoDialog(t, tab)()
	for _, text := range tests {
		t.Run(text, func(t *testing.T) {
			var cleared bool
			formsEval(t, tab, `document.getElementById('notes').value = '', true`, &cleared)
			if err := tab.TypeText(t.Context(), "", "#notes", text); err != nil {
				t.Fatalf("TypeText: %v", err)
			}
			if got := formsString(t, tab, `document.getElementById('notes').value`); got != text {
				t.Errorf("typed %q, the textarea holds %q", text, got)
			}
		})
	}
}

func TestTypeTextCaret(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-fields.html")
	// A field that gains focus is typed into at the end of its text.
	if err := tab.TypeText(t.Context(), "", "#bio", " and more"); err != nil {
		t.Fatal(err)
	}
	// One that has focus keeps its caret.
	for _, key := range []string{"Home", "X"} {
		if err := tab.PressKey(t.Context(), "", "", key); err != nil {
			t.Fatal(err)
		}
	}
	if got := formsString(t, tab, `document.getElementById('bio').value`); got != "Xold text and more" {
		t.Errorf("the textarea holds %q", got)
	}
	if err := tab.TypeText(t.Context(), "", "#editor", "!"); err != nil {
		t.Fatal(err)
	}
	if got := formsString(t, tab, `document.getElementById('editor').textContent`); got != "Old rich text!" {
		t.Errorf("the editor holds %q", got)
	}
	for _, sel := range []string{"#readonly", "#disabled"} {
		if err := tab.TypeText(driver.WithActionWait(t.Context(), 100*time.Millisecond), "", sel, "x"); !errors.Is(err, driver.ErrNotTypeable) {
			t.Errorf("TypeText(%s) = %v, want ErrNotTypeable", sel, err)
		}
	}
}

func TestTypeTextKeyEvents(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-keys.html")
	if err := tab.TypeText(t.Context(), "", "#logged", "aB1 é"); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	var keys []string
	formsEval(t, tab, `window.keys`, &keys)
	want := "keydown:a keypress:a keyup:a keydown:B keypress:B keyup:B keydown:1 keypress:1 keyup:1 " +
		"keydown:  keypress:  keyup:  keydown:é keypress:é keyup:é"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("the page saw\n%s\nwant\n%s", got, want)
	}
	if got := formsString(t, tab, `document.getElementById('logged').value`); got != "aB1 é" {
		t.Errorf("the input holds %q", got)
	}
	// Without an element, keys go to what has focus.
	if err := tab.TypeText(t.Context(), "", "", "cd"); err != nil {
		t.Fatalf("TypeText(nil): %v", err)
	}
	if got := formsString(t, tab, `document.getElementById('logged').value`); got != "aB1 écd" {
		t.Errorf("after typing into the focused input it holds %q", got)
	}
	// Each key's events are sent without waiting for the one before to be
	// answered: the page still sees them in order, and a keydown it
	// cancels still has no keypress and types nothing.
	formsEval(t, tab, `window.keys = [], true`, new(bool))
	if err := tab.TypeText(t.Context(), "", "", "xyx"); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	formsEval(t, tab, `window.keys`, &keys)
	want = "keydown:x keyup:x keydown:y keypress:y keyup:y keydown:x keyup:x"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("the page saw\n%s\nwant\n%s", got, want)
	}
	if got := formsString(t, tab, `document.getElementById('logged').value`); got != "aB1 écdy" {
		t.Errorf("after typing xyx, x cancelled, the input holds %q", got)
	}
	if err := tab.TypeText(t.Context(), "", "#not-focusable", "x"); !errors.Is(err, driver.ErrNotTypeable) {
		t.Errorf("TypeText into a <p> = %v, want ErrNotTypeable", err)
	}
}

// TestTypeTextStopsAtDialog: a keydown that opens a dialog ends the
// typing there. The events of one key go out together, but the next key
// waits for them to be answered, so the rest of the text is not typed
// once the dialog is answered.
func TestTypeTextStopsAtDialog(t *testing.T) {
	t.Parallel()
	tab := formsPage(t, "forms-keys.html")
	formsEval(t, tab, `document.getElementById('alone').addEventListener('keydown', e => { if (e.key === 'b') confirm('go on?'); }), true`, new(bool))
	if err := tab.TypeText(t.Context(), "", "#alone", "abcd"); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	if err := tab.CheckDialog(); !errors.Is(err, driver.ErrDialogOpen) {
		t.Fatalf("CheckDialog = %v, want the confirm dialog open", err)
	}
	if _, err := tab.HandleDialog(t.Context(), true, ""); err != nil {
		t.Fatalf("HandleDialog: %v", err)
	}
	if got := formsString(t, tab, `document.getElementById('alone').value`); got != "ab" {
		t.Errorf("after the dialog the input holds %q, want ab (the key that opened it, nothing after)", got)
	}
}

func TestPressKey(t *testing.T) {
	t.Parallel()
	t.Run("Enter submits", func(t *testing.T) {
		tab := formsPage(t, "forms-keys.html")
		if err := tab.TypeText(t.Context(), "", "#q", "cats"); err != nil {
			t.Fatal(err)
		}
		if err := tab.PressKey(t.Context(), "", "", "Enter"); err != nil {
			t.Fatalf("PressKey: %v", err)
		}
		formsWaitURL(t, tab, "forms-done.html?q=cats&next=&notes=")
	})
	t.Run("Tab moves focus", func(t *testing.T) {
		tab := formsPage(t, "forms-keys.html")
		if err := tab.PressKey(t.Context(), "", "#q", "Tab"); err != nil {
			t.Fatalf("PressKey: %v", err)
		}
		if got := formsString(t, tab, `document.activeElement.id`); got != "next" {
			t.Errorf("after Tab focus is on %q, want next", got)
		}
		if err := tab.PressKey(t.Context(), "", "", "Tab"); err != nil {
			t.Fatal(err)
		}
		if got := formsString(t, tab, `document.activeElement.id + '|' + document.activeElement.value`); got != "notes|" {
			t.Errorf("after a second Tab focus is on %q, want the textarea, still empty", got)
		}
		if err := tab.PressKey(t.Context(), "", "", "Shift+Tab"); err != nil {
			t.Fatal(err)
		}
		if got := formsString(t, tab, `document.activeElement.id`); got != "next" {
			t.Errorf("after Shift+Tab focus is on %q, want next", got)
		}
	})
	t.Run("Space activates a button", func(t *testing.T) {
		tab := formsPage(t, "forms-keys.html")
		for _, key := range []string{"Space", " ", "Enter"} {
			if err := tab.PressKey(t.Context(), "", "#space", key); err != nil {
				t.Fatalf("PressKey(%q): %v", key, err)
			}
		}
		if got := formsString(t, tab, `document.getElementById('clicked').textContent`); got != "3" {
			t.Errorf("the button was clicked %s times, want 3", got)
		}
	})
	t.Run("combos", func(t *testing.T) {
		tab := formsPage(t, "forms-keys.html")
		if err := tab.TypeText(t.Context(), "", "#alone", "hello world"); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"Control+A", "Backspace", "Shift+x"} {
			if err := tab.PressKey(t.Context(), "", "", key); err != nil {
				t.Fatalf("PressKey(%q): %v", key, err)
			}
		}
		if got := formsString(t, tab, `document.getElementById('alone').value`); got != "X" {
			t.Errorf("after select all, delete, Shift+x the input holds %q, want X", got)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		tab := formsPage(t, "forms-keys.html")
		err := tab.PressKey(t.Context(), "", "#q", "Hyperdrive")
		if !errors.Is(err, input.ErrKeyNotSupported) {
			t.Errorf("PressKey(Hyperdrive) = %v, want ErrKeyNotSupported", err)
		}
	})
}

// formsWaitURL waits for the tab's URL to end with suffix.
func formsWaitURL(t *testing.T, tab *Tab, suffix string) {
	t.Helper()
	browsertest.Eventually(t, waitLimit, func() error {
		loc, err := tab.Location(t.Context())
		if err == nil && strings.HasSuffix(loc.URL, suffix) {
			return nil
		}
		return fmt.Errorf("the tab is at %q (%v), want a URL ending in %q", loc.URL, err, suffix)
	})
}

// TestFormsInCrossOriginFrame fills and types into an input of an
// out-of-process iframe, which lives in its own session. It runs its own
// browser with --site-per-process, as TestSnapshotFrames does.
func TestFormsInCrossOriginFrame(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	b, err := Start(t.Context(), &Options{ExecPath: browsertest.ExecPath(t), Args: []string{"--site-per-process"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tab, err := b.Resolve(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Navigate(t.Context(), srv.URL+"/iframes.html"); err != nil {
		t.Fatal(err)
	}
	res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := snapshot.Find(res.Lines, func(s string) bool { return strings.Contains(s, `textbox "Code"`) }, 1)
	if len(ms) != 1 {
		t.Fatalf("no textbox in the snapshot:\n%s", res.Text)
	}
	ref := strings.Fields(ms[0].Line)[0]
	value := func() string {
		t.Helper()
		el, err := tab.element(t.Context(), ref, "")
		if err != nil {
			t.Fatal(err)
		}
		defer el.Release(t.Context())
		if el.Session.ID() == tab.sess.ID() {
			t.Fatalf("%s resolved in the page session, want the out-of-process frame's", ref)
		}
		return evalOn(t, el, `function() { return this.value }`)
	}
	if _, err := tab.Fill(t.Context(), ref, "", "filled"); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if got := value(); got != "filled" {
		t.Errorf("after Fill the frame's input holds %q", got)
	}
	if err := tab.PressKey(t.Context(), ref, "", "Control+A"); err != nil {
		t.Fatalf("PressKey: %v", err)
	}
	if err := tab.TypeText(t.Context(), ref, "", "typed ok"); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	if got := value(); got != "typed ok" {
		t.Errorf("after select all and typing the frame's input holds %q", got)
	}
}
