package browser

import (
	"context"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// maxListedOptions bounds the options an OptionError lists.
const maxListedOptions = 10

// SelectOptions selects the options of a <select> — named by ref, or when
// ref is empty by CSS selector — whose value, else visible label (exactly,
// then ignoring case), is each of values, and deselects the others; a
// single select takes one value. It fires input and change events and
// returns the selected values. An unknown value is an *OptionError;
// navigations and dialogs are handled as by Fill.
func (t *Tab) SelectOptions(ctx context.Context, ref, selector string, values []string) ([]string, error) {
	var sel []string
	err := t.withElement(ctx, ref, selector, func(ctx context.Context, el *element) error {
		f, err := el.field(ctx)
		if err != nil {
			return err
		}
		if f.Kind != "select" {
			if st, err := el.dropdown(ctx, ""); err == nil && st.isDropdown() {
				if len(values) != 1 {
					return fmt.Errorf("%w: a custom dropdown takes one value, not %d", driver.ErrInvalidArgument, len(values))
				}
				sel, err = t.pickDropdown(ctx, el, values[0])
				return err
			}
			return el.refuse("is "+f.describe()+", not a <select> or an ARIA combobox or listbox", driver.RefusedNotSelect)
		}
		if err := el.usable(f); err != nil {
			return err
		}
		if !f.Multiple && len(values) != 1 {
			return fmt.Errorf("%w: the select takes one value, not %d", driver.ErrInvalidArgument, len(values))
		}
		sel, err = el.selectOptions(ctx, values)
		return err
	})
	return sel, err
}

// selectOptionsJS selects the options named by values (see SelectOptions).
var selectOptionsJS = loadScript("select_options")

func (e *element) selectOptions(ctx context.Context, values []string) ([]string, error) {
	var r struct {
		Missing  *string         `json:"missing"`
		Total    int             `json:"total"`
		Options  []driver.Option `json:"options"`
		Selected []string        `json:"selected"`
	}
	if err := e.callJS(ctx, &r, selectOptionsJS, values, maxListedOptions); err != nil {
		return nil, err
	}
	if r.Missing != nil {
		return nil, &driver.OptionError{Ref: e.Ref, Want: *r.Missing, Options: r.Options, Total: r.Total}
	}
	if r.Selected == nil {
		r.Selected = []string{}
	}
	return r.Selected, nil
}

// SetFiles gives a file input — named by ref, or when ref is empty by CSS
// selector — the files at paths, which the caller has checked
// (policy.UploadRoots); the page sees input and change events. Anything
// but an enabled <input type=file> is a *NotTypeableError; more than one
