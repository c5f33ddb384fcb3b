package browser

import (
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
	"github.com/cdpkit/cdpkit/internal/driver"
)

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
func (t *Tab) WaitFor(ctx context.Context, c driver.WaitCondition, timeout time.Duration) (*driver.WaitResult, error) {
	spec, err := c.Spec()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.CheckDialog(); err != nil {
		return nil, err
	}
	deadline := start.Add(timeout)
	dctx, stop := t.UntilDialog(ctx)
	defer stop()
	missing := c.Missing()
	var world runtime.ExecutionContextID
	for {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return nil, &driver.WaitTimeoutError{After: time.Since(start), Missing: missing}
		}
		if world == 0 {
			world, err = waitContext(dctx, s, remaining+waitSliceSlack)
		}
		if err == nil {
			var r *waitReply
			r, err = waitSliceOnce(dctx, s, world, spec, min(waitSlice, remaining))
			switch {
			case err == nil && r.Invalid != "":
				return nil, fmt.Errorf("%w: %s", driver.ErrInvalidArgument, r.Invalid)
			case err == nil && r.Matched != nil:
				return &driver.WaitResult{Matched: *r.Matched, ElapsedMs: time.Since(start).Milliseconds()}, nil
			case err == nil:
				missing = r.Missing
			default:
				world = 0 // gone with its document, perhaps; make a new one
			}
		}
		if err := dialogErr(dctx, err); errors.Is(err, driver.ErrDialogOpen) {
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
	Matched *driver.WaitMatch `json:"matched"`
	Missing []string          `json:"missing"`
	Invalid string            `json:"invalid"`
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
