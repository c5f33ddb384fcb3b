package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// Element states a wait can ask for.
const (
	StateVisible  = "visible"  // in the document, with a non-empty box, not visibility:hidden
	StateHidden   = "hidden"   // not visible, or not in the document
	StateAttached = "attached" // in the document
	StateDetached = "detached" // not in the document
)

// WaitCondition is what [Tab.WaitFor] waits for: the first of its parts
// that holds ends the wait.
type WaitCondition struct {
	// Texts: any of them appears in the page's visible text
	// (document.body.innerText), compared case-insensitively with runs of
	// white space as one space.
	Texts []string
	// TextGone disappears from the visible text.
	TextGone string
	// Selector, a CSS selector matched in the main document, reaches State
	// (StateVisible when empty).
	Selector string
	State    string
	// URL is a substring of the page's URL, or a JavaScript regular
	// expression between slashes, such as "/items\/\d+/" or "/done/i"
	// (a path such as "/items/42" is a substring: 42 are not flags).
	URL string
}

// WaitResult says what ended a wait.
type WaitResult struct {
	Matched   WaitMatch `json:"matched"`
	ElapsedMs int64     `json:"elapsedMs"`
}

// WaitMatch is the part of a WaitCondition that held; exactly one field is
// set, but State goes with Selector. URL is the page's URL.
type WaitMatch struct {
	Text     string `json:"text,omitempty"`
	TextGone string `json:"textGone,omitempty"`
	Selector string `json:"selector,omitempty"`
	State    string `json:"state,omitempty"`
	URL      string `json:"url,omitempty"`
}

// ErrWaitTimeout means a wait's condition did not hold in time.
var ErrWaitTimeout = errors.New("browser: wait timed out")

// WaitTimeoutError says what was still missing when a wait gave up.
type WaitTimeoutError struct {
	After   time.Duration
	Missing []string // one line per part of the condition
}

func (e *WaitTimeoutError) Error() string {
	return fmt.Sprintf("browser: after %d ms: %s", e.After.Milliseconds(), strings.Join(e.Missing, "; "))
}

func (e *WaitTimeoutError) Unwrap() error { return ErrWaitTimeout }

// Wait tuning.
const (
	// waitSlice bounds one in-page wait; between slices the wait starts
	// again, in the new document if the page navigated.
	waitSlice = time.Second
	// waitSliceSlack is how much longer than a slice cdpkit waits for the
	// page's answer (a hidden tab's timers are throttled), and so how late
	// a timeout can be.
	waitSliceSlack = 500 * time.Millisecond
	// waitRetry is the pause after a slice failed, such as mid-navigation.
	waitRetry = 50 * time.Millisecond
	// waitWorld names the isolated world waits run in, where the page's
	// own scripts can neither see nor break them.
	waitWorld = "cdpkit-wait"
)

// WaitFor waits until c holds, for at most timeout, and says what matched.
// It watches the page with a MutationObserver and a 100 ms poll, from an
// isolated world; a navigation restarts the watch in the new document. On
// timeout it returns a [*WaitTimeoutError] saying what was missing. A
// dialog that waits for an answer ends it with a [*DialogOpenError]. The
// context bounds the call as well.
func (t *Tab) WaitFor(ctx context.Context, c WaitCondition, timeout time.Duration) (*WaitResult, error) {
	spec, err := c.spec()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	s, err := t.Session(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.CheckDialog(); err != nil {
		return nil, err
	}
	deadline := start.Add(timeout)
	dctx, stop := t.UntilDialog(ctx)
	defer stop()
	missing := c.missing()
	var world runtime.ExecutionContextID
	for {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return nil, &WaitTimeoutError{After: time.Since(start), Missing: missing}
		}
		if world == 0 {
			world, err = waitContext(dctx, s, remaining+waitSliceSlack)
		}
		if err == nil {
			var r *waitReply
			r, err = waitSliceOnce(dctx, s, world, spec, min(waitSlice, remaining))
			switch {
			case err == nil && r.Invalid != "":
				return nil, fmt.Errorf("%w: %s", ErrInvalidArgument, r.Invalid)
			case err == nil && r.Matched != nil:
				return &WaitResult{Matched: *r.Matched, ElapsedMs: time.Since(start).Milliseconds()}, nil
			case err == nil:
				missing = r.Missing
			default:
				world = 0 // gone with its document, perhaps; make a new one
			}
		}
		if err := dialogErr(dctx, err); errors.Is(err, ErrDialogOpen) {
			return nil, err
		}
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("browser: waiting: %w", ctx.Err())
		case errors.Is(err, cdp.ErrSessionClosed), errors.Is(err, cdp.ErrDisconnected):
			return nil, fmt.Errorf("browser: waiting: %w", err)
		case err != nil:
			// Mid-navigation, or the page was too busy to answer: retry.
			select {
			case <-dctx.Done():
			case <-time.After(min(waitRetry, time.Until(deadline))):
			}
		}
	}
}

// spec is the condition as the in-page function takes it.
func (c WaitCondition) spec() (map[string]any, error) {
	var texts []string
	for _, s := range c.Texts {
		if strings.TrimSpace(s) != "" {
			texts = append(texts, s)
		}
	}
	if len(texts) == 0 && strings.TrimSpace(c.TextGone) == "" && c.Selector == "" && c.URL == "" {
		return nil, fmt.Errorf("%w: nothing to wait for", ErrInvalidArgument)
	}
	state := c.State
	switch state {
	case "":
		state = StateVisible
	case StateVisible, StateHidden, StateAttached, StateDetached:
	default:
		return nil, fmt.Errorf("%w: state %q: want visible, hidden, attached or detached", ErrInvalidArgument, c.State)
	}
	spec := map[string]any{}
	if len(texts) > 0 {
		spec["texts"] = texts
	}
	if strings.TrimSpace(c.TextGone) != "" {
		spec["textGone"] = c.TextGone
	}
	if c.Selector != "" {
		spec["selector"], spec["state"] = c.Selector, state
	}
	if c.URL != "" {
		spec["url"] = c.URL
	}
	return spec, nil
}

// missing describes each part of c as not yet holding.
func (c WaitCondition) missing() []string {
	var m []string
	if len(c.Texts) > 0 {
		m = append(m, fmt.Sprintf("none of the texts %q appeared", c.Texts))
	}
	if c.TextGone != "" {
		m = append(m, fmt.Sprintf("text %q is still there", c.TextGone))
	}
	if c.Selector != "" {
		m = append(m, fmt.Sprintf("%q is not %s", c.Selector, cmp.Or(c.State, StateVisible)))
	}
	if c.URL != "" {
		m = append(m, fmt.Sprintf("the URL does not match %q", c.URL))
	}
	return m
}

// waitContext makes the isolated world waits run in, in the main frame's
// current document, within limit (a busy page answers late).
func waitContext(ctx context.Context, s *cdp.Session, limit time.Duration) (runtime.ExecutionContextID, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	_, main, err := loaders(ctx, s)
	if err != nil {
		return 0, err
	}
	w, err := cdpapi.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: main, WorldName: waitWorld})
	if err != nil {
		return 0, err
	}
	return w.ExecutionContextID, nil
}

// waitReply is what the in-page wait returns.
type waitReply struct {
	Matched *WaitMatch `json:"matched"`
	Missing []string   `json:"missing"`
	Invalid string     `json:"invalid"`
}

// waitSliceOnce runs the in-page wait for at most slice.
func waitSliceOnce(ctx context.Context, s *cdp.Session, world runtime.ExecutionContextID, spec map[string]any, slice time.Duration) (*waitReply, error) {
	if slice <= 0 {
		slice = time.Millisecond
	}
	cctx, cancel := context.WithTimeout(ctx, slice+waitSliceSlack)
	defer cancel()
	var r waitReply
	err := callJS(cctx, s, jsCall{context: world}, waitJS, &r, spec, slice.Milliseconds())
	if errors.As(err, new(*scriptError)) {
		return nil, fmt.Errorf("browser: the in-page wait failed: %w", err)
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// waitJS checks spec now and on every DOM change (at most every 30 ms) and
// every 100 ms (for style changes that mutate nothing), for at most
// sliceMs. It resolves to {matched}, {missing} or {invalid}.
var waitJS = loadScript("wait")

// exceptionText is the first line of an exception's description: its
// message without the stack.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "no result"
	}
	text := d.Text
	if d.Exception != nil {
		switch {
		case d.Exception.Description != "":
			text, _, _ = strings.Cut(d.Exception.Description, "\n    at ")
		case len(d.Exception.Value) > 0:
			var s string
			if jsonv2.Unmarshal(d.Exception.Value, &s) == nil {
				text = "Uncaught " + s
			} else {
				text = "Uncaught " + string(d.Exception.Value)
			}
		case d.Exception.UnserializableValue != "":
			text = "Uncaught " + string(d.Exception.UnserializableValue)
		}
	}
	return text
}
