package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/input"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// Bounds on what one call may ask for.
const (
	maxFormFields = 100
	maxTypeRunes  = 10_000
	maxUploads    = 100
)

type fillArgs struct {
	elementArgs
	Value string `json:"value" jsonschema:"text, option value or label, or true/false for a checkbox"`
	actionArgs
}

type formField struct {
	elementArgs
	Value string `json:"value" jsonschema:"as for fill"`
}

type fillFormArgs struct {
	Elements []formField `json:"elements" jsonschema:"the fields to fill, in order"`
	actionArgs
}

type typeTextArgs struct {
	Text      string `json:"text" jsonschema:"text to type"`
	UID       string `json:"uid,omitempty" jsonschema:"element ref to focus first (default: the focused one)"`
	Selector  string `json:"selector,omitempty" jsonschema:"CSS selector, instead of uid"`
	SubmitKey string `json:"submitKey,omitempty" jsonschema:"key to press after, such as Enter"`
	actionArgs
}

type pressKeyArgs struct {
	Key      string `json:"key" jsonschema:"key name, character or combo such as Control+Shift+R"`
	UID      string `json:"uid,omitempty" jsonschema:"element ref to focus first (default: the focused one)"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector, instead of uid"`
	actionArgs
}

type selectOptionArgs struct {
	UID      string   `json:"uid,omitempty" jsonschema:"element ref of the select (e12)"`
	Selector string   `json:"selector,omitempty" jsonschema:"CSS selector of the select, instead of uid"`
	Values   []string `json:"values" jsonschema:"option values or labels (several for a multiple select)"`
	actionArgs
}

type uploadFileArgs struct {
	UID      string   `json:"uid,omitempty" jsonschema:"element ref of the file input (e12)"`
	Selector string   `json:"selector,omitempty" jsonschema:"CSS selector of the file input, instead of uid"`
	Paths    []string `json:"paths,omitempty" jsonschema:"local files to give the input, inside the upload roots"`
	FilePath string   `json:"filePath,omitempty" jsonschema:"one local file, instead of paths"`
	actionArgs
}

func formTools() []Tool {
	return []Tool{
		define(Tool{
			Name: "fill",
			Description: "Set a field's value as a user edit would (React/Vue see it): inputs, textareas, " +
				"contenteditable, selects, checkboxes, radios.",
		}, fill),
		define(Tool{
			Name:        "fill_form",
			Description: "Fill several fields in order, as fill does; stops at the first that fails.",
		}, fillForm),
		define(Tool{
			Name:        "type_text",
			Description: "Type text as key events into the focused element or uid, then press submitKey.",
		}, typeText),
		define(Tool{
			Name:        "press_key",
			Description: "Press a key or combo (Enter, Tab, Control+A) in the focused element or uid.",
		}, pressKey),
		define(Tool{
			Name:        "select_option",
			Description: "Select options of a <select> by value or label. Returns the selected values.",
		}, selectOption),
		define(Tool{
			Name:        "upload_file",
			Description: "Give local files to an <input type=file>. Files must be inside the upload roots.",
		}, uploadFile),
	}
}

// actOn starts a state-changing call: it resolves the tab and notes its
// state for the changes section.
func actOn(ctx context.Context, env *Env, target, uid, selector string) (*browser.Tab, *before, error) {
	if uid != "" && selector != "" {
		return nil, nil, errorf(InvalidArgs, false, "give uid or selector, not both", "uid and selector do not go together")
	}
	b, tab, err := useTab(ctx, env, target)
	if err != nil {
		return nil, nil, err
	}
	o, err := observe(ctx, b, tab)
	if err != nil {
		return nil, nil, err
	}
	return tab, o, nil
}

// needElement refuses a call that names no element.
func needElement(uid, selector string) error {
	if uid == "" && selector == "" {
		return errorf(InvalidArgs, false, "take a snapshot and pass an element's ref as uid", "give uid or selector")
	}
	return nil
}

type fillResult struct {
	*browser.FillResult
	Changes *Changes `json:"changes"`
}

func fill(ctx context.Context, env *Env, in fillArgs) (*Result, error) {
	if err := needElement(in.UID, in.Selector); err != nil {
		return nil, err
	}
	tab, o, err := actOn(ctx, env, in.Target, in.UID, in.Selector)
	if err != nil {
		return nil, err
	}
	res, err := tab.Fill(ctx, in.UID, in.Selector, in.Value)
	if err != nil {
		return nil, err
	}
	c, err := o.changesSince(ctx, in.IncludeSnapshot)
	if err != nil {
		return nil, err
	}
	return &Result{Data: fillResult{res, c}}, nil
}

type filledField struct {
	UID      string `json:"uid,omitempty"`
	Selector string `json:"selector,omitempty"`
	*browser.FillResult
}

func fillForm(ctx context.Context, env *Env, in fillFormArgs) (*Result, error) {
	switch {
	case len(in.Elements) == 0:
		return nil, errorf(InvalidArgs, false, "give at least one {uid, value}", "elements is empty")
	case len(in.Elements) > maxFormFields:
		return nil, errorf(InvalidArgs, false, fmt.Sprintf("fill at most %d per call", maxFormFields), "%d elements is too many", len(in.Elements))
	}
	for i, f := range in.Elements {
		err := needElement(f.UID, f.Selector)
		if err == nil && f.UID != "" && f.Selector != "" {
			err = errorf(InvalidArgs, false, "give uid or selector, not both", "uid and selector do not go together")
		}
		if err != nil {
			te := AsError(err)
			te.Message = fmt.Sprintf("elements[%d]: %s", i, te.Message)
			return nil, te
		}
	}
	tab, o, err := actOn(ctx, env, in.Target, "", "")
	if err != nil {
		return nil, err
	}
	filled := make([]filledField, 0, len(in.Elements))
	for i, f := range in.Elements {
		res, err := tab.Fill(ctx, f.UID, f.Selector, f.Value)
		if err != nil {
			te := AsError(err)
			done := "nothing was filled"
			if i > 0 {
				done = fmt.Sprintf("elements[0..%d] were filled", i-1)
			}
			te.Message = fmt.Sprintf("elements[%d] (%s): %s; %s", i, fieldName(f), te.Message, done)
			return nil, te
		}
		filled = append(filled, filledField{UID: f.UID, Selector: f.Selector, FillResult: res})
	}
	c, err := o.changesSince(ctx, in.IncludeSnapshot)
	if err != nil {
		return nil, err
	}
	return &Result{Data: map[string]any{"filled": filled, "changes": c}}, nil
}

// fieldName names a field for a message: its uid, or its quoted selector.
func fieldName(f formField) string {
	if f.UID != "" {
		return f.UID
	}
	return fmt.Sprintf("%q", f.Selector)
}

func typeText(ctx context.Context, env *Env, in typeTextArgs) (*Result, error) {
	n := utf8.RuneCountInString(in.Text)
	switch {
	case n == 0:
		return nil, errorf(InvalidArgs, false, "give the text to type; press_key presses a single key", "text is empty")
	case n > maxTypeRunes:
		return nil, errorf(InvalidArgs, false, "use fill to set long text at once", "text is %d characters, over %d", n, maxTypeRunes)
	}
	if in.SubmitKey != "" {
		if _, err := input.ParseCombo(in.SubmitKey); err != nil {
			return nil, err
		}
	}
	tab, o, err := actOn(ctx, env, in.Target, in.UID, in.Selector)
	if err != nil {
		return nil, err
	}
	if err := tab.TypeText(ctx, in.UID, in.Selector, in.Text); err != nil {
		return nil, err
	}
	data := map[string]any{"typed": n}
	if in.SubmitKey != "" {
		if err := tab.PressKey(ctx, "", "", in.SubmitKey); err != nil {
			return nil, err
		}
		data["submitKey"] = in.SubmitKey
	}
	c, err := o.changesSince(ctx, in.IncludeSnapshot)
	if err != nil {
		return nil, err
	}
	data["changes"] = c
	return &Result{Data: data}, nil
}

func pressKey(ctx context.Context, env *Env, in pressKeyArgs) (*Result, error) {
	if _, err := input.ParseCombo(in.Key); err != nil {
		return nil, err
	}
	tab, o, err := actOn(ctx, env, in.Target, in.UID, in.Selector)
	if err != nil {
		return nil, err
	}
	if err := tab.PressKey(ctx, in.UID, in.Selector, in.Key); err != nil {
		return nil, err
	}
	c, err := o.changesSince(ctx, in.IncludeSnapshot)
	if err != nil {
		return nil, err
	}
	return &Result{Data: map[string]any{"key": in.Key, "changes": c}}, nil
}

func selectOption(ctx context.Context, env *Env, in selectOptionArgs) (*Result, error) {
	if err := needElement(in.UID, in.Selector); err != nil {
		return nil, err
	}
	if in.Values == nil {
		return nil, errorf(InvalidArgs, false, "give the option values or labels to select", "values is missing")
	}
	tab, o, err := actOn(ctx, env, in.Target, in.UID, in.Selector)
	if err != nil {
		return nil, err
	}
	sel, err := tab.SelectOptions(ctx, in.UID, in.Selector, in.Values)
	if err != nil {
		return nil, err
	}
	c, err := o.changesSince(ctx, in.IncludeSnapshot)
	if err != nil {
		return nil, err
	}
	return &Result{Data: map[string]any{"selected": sel, "changes": c}}, nil
}

func uploadFile(ctx context.Context, env *Env, in uploadFileArgs) (*Result, error) {
	if err := needElement(in.UID, in.Selector); err != nil {
		return nil, err
	}
	paths := in.Paths
	if in.FilePath != "" {
		paths = append(paths, in.FilePath)
	}
	switch {
	case len(paths) == 0:
		return nil, errorf(InvalidArgs, false, "give the files as paths", "paths is empty")
	case len(paths) > maxUploads:
		return nil, errorf(InvalidArgs, false, fmt.Sprintf("give at most %d files", maxUploads), "%d files is too many", len(paths))
	}
	// Every path is checked before the page gets any.
	roots := env.uploadRoots(ctx)
	files := make([]string, len(paths))
	names := make([]string, len(paths))
	for i, p := range paths {
		abs, err := roots.Check(p)
		if err != nil {
			var pe *policy.PathError
			if errors.As(err, &pe) {
				return nil, errorf(UnsafePath, false, "upload files from inside "+roots.String()+"; cdpkit's --upload-root flag sets these directories", "%s", pe.Error())
			}
			return nil, err
		}
		files[i], names[i] = abs, filepath.Base(abs)
	}
	tab, o, err := actOn(ctx, env, in.Target, in.UID, in.Selector)
	if err != nil {
		return nil, err
	}
	if err := tab.SetFiles(ctx, in.UID, in.Selector, files); err != nil {
		return nil, err
	}
	c, err := o.changesSince(ctx, in.IncludeSnapshot)
	if err != nil {
		return nil, err
	}
	return &Result{Data: map[string]any{"files": names, "changes": c}}, nil
}

// uploadRoots returns the directories upload_file may read: the artifact
// dir, the --upload-root dirs (env.UploadRoots) and, when env.CallerDirs is
// set (the CLI's daemon), the directory of the CLI call, if the CLI sent
// one and it is a safe root (policy.SafeUploadRoot). The process's own
// working directory is never a root by default: cdpkit started from / or
// $HOME would hand pages any file.
func (env *Env) uploadRoots(ctx context.Context) policy.UploadRoots {
	var roots policy.UploadRoots
	if env.Artifacts != nil {
		roots = append(roots, env.Artifacts.Dir())
	}
	roots = append(roots, env.UploadRoots...)
	if dir, ok := ctx.Value(callerDirKey{}).(string); ok && env.CallerDirs && policy.SafeUploadRoot(dir) == nil {
		roots = append(roots, dir)
	}
	return roots
}

type callerDirKey struct{}

// CallerDirMeta is the _meta key of a tools/call request in which the CLI
// sends the directory it runs in.
const CallerDirMeta = "cdpkit/cwd"

// WithCallerDir returns ctx carrying the directory the caller (a CLI call)
// runs in; see Env.CallerDirs.
func WithCallerDir(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, callerDirKey{}, dir)
}

// keyHint lists a few valid key names.
const keyHint = "use a key name such as Enter, Tab, Escape, Backspace, Delete, ArrowDown, PageDown, Home, F5 or Space, " +
	"a single character, or a combo such as Control+Shift+R"
