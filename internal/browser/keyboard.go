package browser

import (
	"context"
	"fmt"
	"unicode"

	cdpapi "github.com/chromedp/cdproto/cdp"
	cdpinput "github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/input"
)

// TypeText types text as real key events, character by character, for
// pages that listen to keydown, keypress and keyup: into the element named
// by ref, or when ref is empty by CSS selector, focused first; or, when
// both are empty, into whatever has focus.
//
// Characters with no key on a US keyboard (most scripts, emoji) arrive as
// keys named by the character and carrying it as text, as from a layout
// that has them; invisible ones that no key types (such as the zero-width
// joiner inside 👨‍👩‍👧) are inserted as an input method would. "\n" presses
// Enter and "\t" Tab, with their default actions. A field that gains focus
// gets its caret at the end; one that had focus keeps it. A read-only or
// disabled field, or an element that cannot take focus, is a
// *NotTypeableError.
//
// The text is never logged. Navigations and dialogs are handled as by
// Fill. The context bounds the whole typing; when it ends part of the text
// may have been typed.
func (t *Tab) TypeText(ctx context.Context, ref, selector, text string) error {
	return t.withKeys(ctx, ref, selector, true, func(ctx context.Context, s *cdp.Session) error {
		return typeText(ctx, s, text)
	})
}

// PressKey presses a key or combo — "Enter", "a", "Control+Shift+R" (see
// input.ParseCombo) — in the element named by ref or selector, focused
// first, or, when both are empty, in whatever has focus. Keys carry their
// default actions: Enter submits a form, Tab moves focus, Space activates
// a focused button. An unknown key is an *input.KeyError, found before
// anything is focused. Navigations and dialogs are handled as by Fill.
func (t *Tab) PressKey(ctx context.Context, ref, selector, key string) error {
	c, err := input.ParseCombo(key)
	if err != nil {
		return err
	}
	return t.withKeys(ctx, ref, selector, false, func(ctx context.Context, s *cdp.Session) error {
		return dispatchKeys(ctx, s, c.Events())
	})
}

// withKeys runs fn as an action of the tab, with the session whose
// renderer holds the focus: that of the element, focused first, if one is
// named (an out-of-process iframe's for an element in one), else the
// tab's. For typing, a read-only or disabled field is refused. The keys
// are watched (see watchKeys) so that the action need not wait after them
// when they changed nothing.
func (t *Tab) withKeys(ctx context.Context, ref, selector string, typing bool, fn func(ctx context.Context, s *cdp.Session) error) error {
	if ref == "" && selector == "" {
		ps, err := t.session(ctx)
		if err != nil {
			return err
		}
		return t.actWith(ctx, ps, ps, func(ctx context.Context) (inputWait, error) {
			return t.watchKeys(ctx, ps, func(ctx context.Context) error { return fn(ctx, ps) })
		})
	}
	return t.withElementWait(ctx, ref, selector, visibleEnabled(selector), func(ctx context.Context, el *element) (inputWait, error) {
		if typing {
			f, err := el.field(ctx)
			if err != nil {
				return waitAfterInput, err
			}
			if err := el.usable(f); err != nil {
				return waitAfterInput, err
			}
		}
		if err := el.focus(ctx); err != nil {
			return waitAfterInput, err
		}
		return t.watchKeys(ctx, el.Session, func(ctx context.Context) error { return fn(ctx, el.Session) })
	})
}

// keysWatchJS starts watching the document for mutations; keysChangedJS
// stops and says whether there were any.
var (
	keysWatchJS   = loadScript("keys_watch")
	keysChangedJS = loadScript("keys_changed")
)

// watchKeys runs send, which sends key events to s's renderer, between a
// script that starts watching the document for mutations and one that
// reports them: waitIfEvents when there were none, so that the action
// need not wait a frame after keys that only moved the focus or the caret
// or typed into a field. If the watch cannot start, the action waits as
// usual.
func (t *Tab) watchKeys(ctx context.Context, s *cdp.Session, send func(ctx context.Context) error) (inputWait, error) {
	no, yes := false, true
	r, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "(" + keysWatchJS.src + ")()", ReturnByValue: &no, Silent: &yes, ObjectGroup: elementGroup,
	})
	if err != nil || r.ExceptionDetails != nil || r.Result == nil || r.Result.ObjectID == "" {
		return waitAfterInput, send(ctx)
	}
	// The watcher is a handle like an element's, freed the same way.
	w := &element{Session: s, Object: r.Result.ObjectID}
	defer t.releaseLater(ctx, w)
	if err := send(ctx); err != nil {
		return waitAfterInput, err
	}
	var changed bool
	if err := callJS(ctx, s, jsCall{this: w.Object}, keysChangedJS, &changed); err != nil || changed {
		return waitAfterInput, nil
	}
	return waitIfEvents, nil
}

// unidentified is the key value of characters without a key.
const unidentified = "Unidentified"

// typeText sends the key events that type text (see TypeText).
func typeText(ctx context.Context, s *cdp.Session, text string) error {
	for _, r := range text {
		events := input.TypeEvents(string(r))
		if events[0].Key != unidentified {
			if err := dispatchKeys(ctx, s, events); err != nil {
				return err
			}
			continue
		}
		if !unicode.IsPrint(r) {
			if _, err := cdpapi.Call(ctx, s, cdpinput.InsertText, cdpinput.InsertTextParams{Text: string(r)}); err != nil {
				return fmt.Errorf("browser: inserting text: %w", err)
			}
			continue
		}
		// A page reading event.key sees the character, not "Unidentified".
		for _, ev := range events {
			ev.Key = string(r)
		}
		if err := dispatchKeys(ctx, s, events); err != nil {
			return err
		}
	}
	return nil
}

// dispatchKeys sends the events of one key press (a key with the
// modifiers held for it, or one typed character) in order, each once the
// one before it is on its way, without waiting for its answer: the
// browser hands them to the renderer in the order sent, so waiting only
// added a round trip per event. The next press waits for this one's
// answers, so a keydown that opens a dialog, or a page that hangs, stops
// the typing there, as it stops a person's.
func dispatchKeys(ctx context.Context, s *cdp.Session, events []*cdpinput.DispatchKeyEventParams) error {
	answers := make([]func() (cdpapi.Empty, error), len(events))
	for i, ev := range events {
		answers[i] = driver.Ahead(ctx, func(ctx context.Context) (cdpapi.Empty, error) {
			return cdpapi.Call(ctx, s, cdpinput.DispatchKeyEvent, *ev)
		})
	}
	var first error
	for _, answer := range answers {
		if _, err := answer(); err != nil && first == nil {
			first = fmt.Errorf("browser: pressing keys: %w", err)
		}
	}
	return first
}
