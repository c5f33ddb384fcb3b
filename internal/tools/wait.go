package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Bounds of wait_for's timeout.
const (
	defaultWaitTimeout = 5 * time.Second
	// waitReserve is kept from the tool's deadline to report a timeout.
	waitReserve = time.Second
)

type waitForArgs struct {
	Text     []string `json:"text,omitempty" jsonschema:"any of these appears"`
	TextGone string   `json:"textGone,omitempty"`
	Selector string   `json:"selector,omitempty" jsonschema:"CSS selector to reach state"`
	State    string   `json:"state,omitempty" jsonschema:"visible (default), hidden, attached or detached"`
	URL      string   `json:"url,omitempty" jsonschema:"URL substring, or /regex/flags"`
	Time     int      `json:"time,omitempty"`
	Timeout  int      `json:"timeout,omitempty" jsonschema:"ms (default 5000)"`
	Target   string   `json:"target,omitempty"`
}

func waitTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "wait_for",
			Description: "Wait for text, textGone, a selector's state or url, or time ms.",
			ReadOnly:    true,
			// A dialog blocks the page it waits on; a time alone needs
			// no tab (noTab).
			Core:  true,
			Verbs: []Verb{{Name: "wait", Args: []string{"text?"}, Summary: "wait until any of these texts appears (or --selector, --url, --textGone, --time)", Rank: 18}},
		}, waitFor),
	}
}

type waitForData struct {
	*driver.WaitResult
	Dialog *driver.Dialog `json:"dialog,omitempty"`
}

func (in *waitForArgs) check(context.Context, *Env) error {
	hasCondition := len(in.Text) > 0 || in.TextGone != "" || in.Selector != "" || in.URL != ""
	switch {
	case in.Time < 0 || in.Timeout < 0:
		return errorf(InvalidArgs, false, "use 0 or more", "time and timeout must not be negative")
	case in.State != "" && in.Selector == "":
		return errorf(InvalidArgs, false, "give the selector whose state to wait for", "state needs a selector")
	case in.Time > 0 && (hasCondition || in.Timeout > 0):
		return errorf(InvalidArgs, false, "give time alone, or conditions with a timeout", "time does not go with conditions or timeout")
	case in.Time == 0 && !hasCondition:
		return errorf(InvalidArgs, false, "give text, textGone, selector, url or time", "nothing to wait for")
	}
	return nil
}

// noTab says a wait for a time alone needs no tab.
func (in *waitForArgs) noTab() bool { return in.Time > 0 }

func waitFor(ctx context.Context, _ *Env, d *door, in waitForArgs) (*Result, error) {
	if in.Time > 0 {
		d := time.Duration(in.Time) * time.Millisecond
		if budget := waitBudget(ctx); d > budget {
			return nil, errorf(InvalidArgs, false, "wait in several calls, or raise the tool timeout",
				"time %d ms is past the call's deadline (%d ms left)", in.Time, budget.Milliseconds())
		}
		start := time.Now()
		progress(ctx, "waiting")
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &Result{Data: map[string]int64{"elapsedMs": time.Since(start).Milliseconds()}}, nil
	}
	tab := d.tab
	timeout := defaultWaitTimeout
	if in.Timeout > 0 {
		timeout = time.Duration(in.Timeout) * time.Millisecond
	}
	timeout = max(min(timeout, waitBudget(ctx)), 0)
	progress(ctx, "waiting")
	// Should the call's deadline end the wait before it can report, the
	// TIMEOUT still says what it waited for.
	driver.Step(ctx, in.awaited())
	res, err := tab.WaitFor(ctx, driver.WaitCondition{
		Texts: in.Text, TextGone: in.TextGone, Selector: in.Selector, State: in.State, URL: in.URL,
	}, timeout)
	if err != nil {
		return nil, err
	}
	return &Result{Data: waitForData{WaitResult: res, Dialog: tab.DialogNote()}}, nil
}

// awaited names the wait's conditions, as a step: "waiting for the texts
// ["Saved!"]".
func (in *waitForArgs) awaited() string {
	var what []string
	if len(in.Text) > 0 {
		q, _ := json.Marshal(in.Text)
		what = append(what, "the texts "+string(q))
	}
	if in.TextGone != "" {
		what = append(what, fmt.Sprintf("the text %q to go", in.TextGone))
	}
	if in.Selector != "" {
		what = append(what, fmt.Sprintf("%q to be %s", in.Selector, cmp.Or(in.State, "visible")))
	}
	if in.URL != "" {
		what = append(what, fmt.Sprintf("the URL %q", in.URL))
	}
	return "waiting for " + strings.Join(what, ", ")
}

// waitBudget is how long a wait may last and still report its outcome
// before the call's deadline.
func waitBudget(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl) - waitReserve
	}
	return DefaultTimeout - waitReserve
}

// waitTimeoutMessage is a timed-out wait's TIMEOUT message.
func waitTimeoutMessage(e *driver.WaitTimeoutError) string {
	return fmt.Sprintf("waited %d ms: %s", e.After.Milliseconds(), strings.Join(e.Missing, "; "))
}
