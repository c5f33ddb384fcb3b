package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Custom dropdowns: an ARIA combobox (or a button with
// aria-haspopup=listbox) that opens a listbox of role=option elements, or
// such a listbox itself. SelectOptions drives them as a user does: it
// clicks the combobox open, clicks the option by its label, and checks
// that the dropdown took it.

// dropdownJS reads a custom dropdown (see the script).
var dropdownJS = loadScript("dropdown")

// dropdownState is what dropdownJS reports.
type dropdownState struct {
	Role     string   `json:"role"`
	Popup    string   `json:"popup"`
	Expanded bool     `json:"expanded"`
	Labels   []string `json:"labels"`
	Total    int      `json:"total"`
	Index    int      `json:"index"`
	Selected bool     `json:"selected"`
	Shown    string   `json:"shown"`
}

// isDropdown reports whether st describes a custom dropdown.
func (st dropdownState) isDropdown() bool {
	return st.Role == "combobox" || st.Role == "listbox" || st.Popup == "listbox" || st.Popup == "true" && st.Total > 0
}

func (e *element) dropdown(ctx context.Context, label string) (dropdownState, error) {
	var st dropdownState
	err := callJS(ctx, e.Session, jsCall{this: e.Object}, dropdownJS, &st, label, "state")
	return st, err
}

// pickDropdown selects the option labelled label of the custom dropdown
// el (see above) and returns its label. Options that do not show up
// within the action wait, or none with that label, are an *OptionError;
// a dropdown that does not take the option a *NotTypeableError.
func (t *Tab) pickDropdown(ctx context.Context, el *element, label string) ([]string, error) {
	ps, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	st, err := el.dropdown(ctx, label)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(actionWait(ctx))
	if st.Index < 0 && st.Role != "listbox" && !st.Expanded {
		driver.Step(ctx, "opening the dropdown")
		if err := t.clickElement(ctx, ps, el); err != nil {
			return nil, err
		}
	}
	// Wait for the options, which a page may render or fetch after the
	// click, until one has the label or the wait is over.
	for st.Index < 0 {
		if st, err = el.dropdown(ctx, label); err != nil {
			return nil, err
		}
		if st.Index >= 0 || !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		t.awaitChange(ctx, min(time.Until(deadline), changeWait))
	}
	if st.Index < 0 {
		opts := make([]driver.Option, len(st.Labels))
		for i, l := range st.Labels {
			opts[i] = driver.Option{Value: l, Label: l}
		}
		return nil, &driver.OptionError{Ref: el.Ref, Want: label, Options: opts, Total: st.Total}
	}
	opt, err := el.dropdownOption(ctx, label)
	if err != nil {
		return nil, err
	}
	defer opt.Release(ctx)
	driver.Step(ctx, "clicking the option")
	if err := t.clickElement(ctx, ps, opt); err != nil {
		return nil, err
	}
	// The page updates the combobox in reaction: look until it shows the
	// label or marks the option selected.
	want := strings.ToLower(label)
	if st.Index < len(st.Labels) {
		want = strings.ToLower(st.Labels[st.Index]) // as the page spells it
	}
	verify := time.Now().Add(min(time.Second, time.Until(deadline)+time.Second))
	for {
		after, err := el.dropdown(ctx, label)
		if err != nil {
			return nil, err
		}
		if strings.Contains(strings.ToLower(after.Shown), want) || (after.Index >= 0 && after.Selected) {
			return []string{strings.TrimSpace(label)}, nil
		}
		if !time.Now().Before(verify) || ctx.Err() != nil {
			return nil, el.refuse(fmt.Sprintf("did not take the option %q: it shows %q", label, cut(after.Shown, 60)), driver.RefusedUndone)
		}
		t.awaitChange(ctx, min(time.Until(verify), changeWait))
	}
}

// dropdownOption returns the option of el's dropdown labelled label.
func (e *element) dropdownOption(ctx context.Context, label string) (*element, error) {
	lv, _ := json.Marshal(label)
	yes := false
	r, err := cdpapi.Call(ctx, e.Session, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function(label, mode) { return (" + dropdownJS.src + ").call(this, label, mode) }",
		ObjectID:            e.Object,
		Arguments:           []*runtime.CallArgument{{Value: lv}, {Value: []byte(`"element"`)}},
		ReturnByValue:       &yes, ObjectGroup: elementGroup,
	})
	if err != nil {
		return nil, fmt.Errorf("browser: finding the option: %w", err)
	}
	if r.ExceptionDetails != nil || r.Result == nil || r.Result.ObjectID == "" {
		return nil, fmt.Errorf("%w: the option %q went away", driver.ErrElementNotFound, label)
	}
	d, err := cdpapi.Call(ctx, e.Session, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: r.Result.ObjectID})
	if err != nil || d.Node == nil {
		return nil, fmt.Errorf("browser: describing the option: %w", err)
	}
	return &element{Session: e.Session, Backend: d.Node.BackendNodeID, Object: r.Result.ObjectID}, nil
}

// clickElement clicks el with the left button at an uncovered point, as
// Click does, inside an action already under way (no navigation wait).
func (t *Tab) clickElement(ctx context.Context, ps *cdp.Session, el *element) error {
	p, err := t.freePoint(ctx, ps, el, "", true, true)
	if err != nil {
		return err
	}
	button, buttons, _ := mouseButton("left")
	return clickPoint(ctx, ps, p, button, buttons, 1, 0)
}
