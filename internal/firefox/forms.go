package firefox

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// maxListedOptions bounds the options an OptionError lists, as on Chromium.
const maxListedOptions = 10

// SelectOptions implements driver.TabDriver with the same in-page picker
// as Chromium (value, else label): the select's input and change events
// fire once.
func (t *Tab) SelectOptions(ctx context.Context, ref, selector string, values []string) ([]string, error) {
	el, err := t.element(ctx, ref, selector)
	if err != nil {
		return nil, err
	}
	var f fieldInfo
	if err := t.callJSON(ctx, sharedScript("field_info"), el, &f); err != nil {
		return nil, elementErr(ref, selector, t.wrap(err))
	}
	if f.Kind != "select" {
		return nil, &driver.ElementError{Ref: ref, Selector: selector, Err: fmt.Errorf("%w: it is not a <select>", driver.ErrNotTypeable)}
	}
	if f.Disabled {
		return nil, &driver.ElementError{Ref: ref, Selector: selector, Err: driver.ErrElementDisabled}
	}
	return t.selectIn(ctx, el, ref, values)
}

func (t *Tab) selectIn(ctx context.Context, el *sharedRef, ref string, values []string) ([]string, error) {
	var r struct {
		Missing  *string         `json:"missing"`
		Total    int             `json:"total"`
		Options  []driver.Option `json:"options"`
		Selected []string        `json:"selected"`
	}
	if err := t.callJSON(ctx, sharedScript("select_options"), el, &r, values, maxListedOptions); err != nil {
		return nil, elementErr(ref, "", t.wrap(err))
	}
	if r.Missing != nil {
		return nil, &driver.OptionError{Ref: ref, Want: *r.Missing, Options: r.Options, Total: r.Total}
	}
	if r.Selected == nil {
		r.Selected = []string{}
	}
	return r.Selected, nil
}

// fillChoice fills a select (by value or label) or sets a checkbox or
// radio ("true"/"false") with a real click when its state differs.
func (t *Tab) fillChoice(ctx context.Context, el *sharedRef, ref, selector string, f fieldInfo, value string) (*driver.FillResult, error) {
	if f.Disabled {
		return nil, &driver.ElementError{Ref: ref, Selector: selector, Err: driver.ErrElementDisabled}
	}
	if f.Kind == "select" {
		sel, err := t.selectIn(ctx, el, ref, []string{value})
		if err != nil {
			return nil, err
		}
		return &driver.FillResult{Kind: f.Kind, Selected: sel}, nil
	}
	var on bool
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "true", "on", "checked", "yes", "1":
		on = true
	case "false", "off", "unchecked", "no", "0":
	default:
		return nil, fmt.Errorf("%w: a %s takes \"true\" or \"false\"", driver.ErrInvalidArgument, f.Kind)
	}
	if f.Checked != on {
		if f.Kind == "radio" && !on {
			return nil, fmt.Errorf("%w: a radio is unchecked by checking another of its group", driver.ErrInvalidArgument)
		}
		if _, err := t.Click(ctx, driver.ClickOptions{Ref: ref, Selector: selector}); err != nil {
			return nil, err
		}
		if err := t.callJSON(ctx, `function() { return this.checked; }`, el, &f.Checked); err != nil {
			return nil, elementErr(ref, selector, t.wrap(err))
		}
	}
	res := &driver.FillResult{Kind: f.Kind, Checked: &f.Checked}
	if f.Checked != on {
		res.Warning = "the page kept the box as it was"
	}
	return res, nil
}
