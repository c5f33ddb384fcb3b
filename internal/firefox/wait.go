package firefox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/pagejs"
)

// waitSlice bounds one in-page wait; between slices the wait starts again,
// in the new document if the page navigated.
const waitSlice = 2 * time.Second

var (
	waitJS = sharedScript("wait")
	// read_text.js runs after the hidden-text filter Chromium uses
	// (pagejs.HiddenTextPrelude), in readSandbox.
	readTextJS = "(function() {" + pagejs.HiddenTextPrelude() + "return (" + sharedScript("read_text") + "); })()"
)

// WaitFor implements driver.TabDriver with the same in-page waiter as
// Chromium (js/wait.js), run in slices so that a navigation restarts it
// in the new document.
func (t *Tab) WaitFor(ctx context.Context, c driver.WaitCondition, timeout time.Duration) (*driver.WaitResult, error) {
	spec := map[string]any{}
	if len(c.Texts) > 0 {
		spec["texts"] = c.Texts
	}
	if c.TextGone != "" {
		spec["textGone"] = c.TextGone
	}
	if c.Selector != "" {
		state := c.State
		if state == "" {
			state = "visible"
		}
		spec["selector"], spec["state"] = c.Selector, state
	}
	if c.URL != "" {
		spec["url"] = c.URL
	}
	if len(spec) == 0 {
		return nil, fmt.Errorf("%w: give a condition to wait for", driver.ErrInvalidArgument)
	}
	start := time.Now()
	deadline := start.Add(timeout)
	var missing []string
	for {
		if err := t.CheckDialog(); err != nil {
			return nil, err
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return nil, &driver.WaitTimeoutError{After: time.Since(start), Missing: missing}
		}
		slice := min(waitSlice, remaining)
		sctx, cancel := context.WithTimeout(ctx, slice+time.Second)
		var r struct {
			Matched *driver.WaitMatch `json:"matched"`
			Missing []string          `json:"missing"`
			Invalid string            `json:"invalid"`
		}
		err := t.callJSON(sctx, waitJS, nil, &r, spec, slice.Milliseconds())
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == nil && r.Invalid != "":
			return nil, fmt.Errorf("%w: %s", driver.ErrInvalidArgument, r.Invalid)
		case err == nil && r.Matched != nil:
			return &driver.WaitResult{Matched: *r.Matched, ElapsedMs: time.Since(start).Milliseconds()}, nil
		case err == nil:
			missing = r.Missing
		case errors.Is(err, driver.ErrSessionClosed):
			return nil, err
		}
		// An error is most often the document going away mid-slice: the
		// next slice runs in the new one.
	}
}

// Text implements driver.TabDriver: the page's (or an element's)
// visible text, or a field's value, with the same reader as Chromium.
func (t *Tab) Text(ctx context.Context, o driver.TextOptions) (*driver.TextResult, error) {
	max := o.MaxChars
	if max <= 0 {
		max = driver.DefaultTextChars
	}
	var this *sharedRef
	if o.Ref != "" || o.Selector != "" {
		el, err := t.element(ctx, o.Ref, o.Selector)
		if err != nil {
			return nil, err
		}
		this = el
	} else if err := t.CheckDialog(); err != nil {
		return nil, err
	}
	var r struct {
		driver.TextResult
		Text     string `json:"text"`
		Password bool   `json:"password"`
	}
	if err := t.callJSONSandboxed(ctx, readTextJS, this, &r, max); err != nil {
		return nil, elementErr(o.Ref, o.Selector, t.wrap(err))
	}
	r.TextResult.Text, r.TextResult.Password = r.Text, r.Password
	return &r.TextResult, nil
}
