package firefox

import (
	"context"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// SetFiles implements driver.TabDriver: input.setFiles on a file input,
// refused as on Chromium for anything else, a disabled input, or several
// files for an input without multiple. The paths are the caller's to
// check (the tools layer holds them to the upload roots).
func (t *Tab) SetFiles(ctx context.Context, ref, selector string, paths []string) error {
	el, err := t.element(ctx, ref, selector)
	if err != nil {
		return err
	}
	var f struct {
		fieldInfo
		Tag      string `json:"tag"`
		Type     string `json:"type"`
		Multiple bool   `json:"multiple"`
	}
	if err := t.callJSON(ctx, sharedScript("field_info"), el, &f); err != nil {
		return elementErr(ref, selector, t.wrap(err))
	}
	what := f.Tag
	if f.Type != "" {
		what += " " + f.Type
	}
	switch {
	case f.Kind != "file":
		return &driver.NotTypeableError{Ref: ref, Reason: "is " + what + ", not a file input", Why: driver.RefusedNotFileInput}
	case f.Disabled:
		return &driver.NotTypeableError{Ref: ref, Reason: "is disabled", Why: driver.RefusedDisabled}
	case !f.Multiple && len(paths) > 1:
		return fmt.Errorf("%w: the file input takes one file, not %d", driver.ErrInvalidArgument, len(paths))
	}
	driver.Step(ctx, "setting files")
	context := el.Context
	if context == "" {
		context = t.id
	}
	err = t.b.conn.Call(ctx, "input.setFiles", map[string]any{"context": context, "element": el, "files": paths}, nil)
	if err != nil {
		return fmt.Errorf("firefox: setting files: %w", elementErr(ref, selector, t.wrap(err)))
	}
	return nil
}

// FileChooser implements driver.TabDriver: file choosers are not tracked
// on Firefox (upload_file sets a file input directly), so there is never
// one.
func (t *Tab) FileChooser(context.Context) (*driver.FileChooser, error) { return nil, nil }
