package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/driver"
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
	Value string `json:"value" jsonschema:"text, option, or true/false"`
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
	Text      string `json:"text"`
	UID       string `json:"uid,omitempty" jsonschema:"ref to focus first"`
	Selector  string `json:"selector,omitempty" jsonschema:"CSS selector"`
	SubmitKey string `json:"submitKey,omitempty" jsonschema:"key to press after (Enter)"`
	actionArgs
}

type pressKeyArgs struct {
	Key      string `json:"key" jsonschema:"Enter, a, Control+Shift+R…"`
	UID      string `json:"uid,omitempty" jsonschema:"ref to focus first"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector"`
	Repeat   int    `json:"repeat,omitempty"`
	actionArgs
}

// maxKeyRepeat bounds press_key's repeat.
const maxKeyRepeat = 100

type selectOptionArgs struct {
	UID      string   `json:"uid,omitempty" jsonschema:"element ref of the select (e12)"`
	Selector string   `json:"selector,omitempty" jsonschema:"CSS selector of the select, instead of uid"`
	Values   []string `json:"values" jsonschema:"option values or labels (several for a multiple select)"`
	actionArgs
}

type uploadFileArgs struct {
	UID      string   `json:"uid,omitempty" jsonschema:"ref (e12)"`
	Selector string   `json:"selector,omitempty" jsonschema:"CSS selector"`
	Paths    []string `json:"paths,omitempty"`
	FilePath string   `json:"filePath,omitempty" jsonschema:"one file"`
	actionArgs

	files, names []string // checked absolute paths and their base names, by check
}

// Form tools run while a dialog waits: the browser refuses the input
// itself, naming the dialog.
func formTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "fill",
			Description: "Set a field's value as a user edit would: input, textarea, contenteditable, select, checkbox, radio. Element as in click.",
			Dialog:      DialogPasses, Changes: ReportChanges, Core: true,
			Verbs: []Verb{{Name: "fill", Args: []string{"uid:ref", "value:text"}, Summary: "set a field's value", Rank: 4}},
		}, fill),
		defineOn(Tool{
			Name:        "fill_form",
			Description: "Fill several fields in order, as fill does; stops at the first that fails.",
			Dialog:      DialogPasses, Changes: ReportChanges,
		}, fillForm),
		defineOn(Tool{
			Name:        "type_text",
			Description: "Type text as key events into the focused element or uid.",
			Dialog:      DialogPasses, Changes: ReportChanges, Core: true,
			Verbs: []Verb{{Name: "type", Args: []string{"text"}, Summary: "type text into the focused element", Rank: 5}},
		}, typeText),
		defineOn(Tool{
			Name:        "press_key",
			Description: "Press a key or combo in the focused element or uid.",
			Dialog:      DialogPasses, Changes: ReportChanges, Core: true,
			Verbs: []Verb{{Name: "press", Args: []string{"key"}, Summary: "press a key or combo such as Enter or Control+A", Rank: 6}},
		}, pressKey),
		defineOn(Tool{
			Name:        "select_option",
			Description: "Select options of a <select> by value or label, or pick one of a custom ARIA combobox/listbox by label (opens it, clicks, verifies). Returns the selected values.",
			Dialog:      DialogPasses, Changes: ReportChanges,
			Verbs: []Verb{{Name: "select", Args: []string{"uid:ref", "values:value"}, Summary: "select options of a <select> or combobox by value or label", Rank: 13}},
		}, selectOption),
		defineOn(Tool{
			Name:        "upload_file",
			Description: "Give local files (in the upload roots) to a file input.",
			Dialog:      DialogPasses, Changes: ReportChanges, Core: true,
			Verbs: []Verb{{Name: "upload", Args: []string{"uid:ref", "paths:path"}, Summary: "give files to a file input (paths are the caller's)", Rank: 14}},
		}, uploadFile),
	}
}

// needElement refuses a call that names no element.
func needElement(uid, selector string) error {
	if uid == "" && selector == "" {
		return errorf(InvalidArgs, false, "take a snapshot and pass an element's ref as uid", "give uid or selector")
	}
	return nil
}

type fillResult struct {
	*driver.FillResult
	changed
}

func (in *fillArgs) check(context.Context, *Env) error { return in.checkTarget() }

func fill(ctx context.Context, _ *Env, d *door, in fillArgs) (*Result, error) {
	ctx, err := in.prepare(ctx, d.tab)
	if err != nil {
		return nil, err
	}
	res, err := d.tab.Fill(ctx, in.UID, in.Selector, in.Value)
	if err != nil {
		return nil, err
	}
	return &Result{Data: &fillResult{FillResult: res}}, nil
}

type filledField struct {
	UID      string `json:"uid,omitempty"`
	Selector string `json:"selector,omitempty"`
	*driver.FillResult
}

func (in *fillFormArgs) check(context.Context, *Env) error {
	switch {
	case len(in.Elements) == 0:
		return errorf(InvalidArgs, false, "give at least one {uid, value}", "elements is empty")
	case len(in.Elements) > maxFormFields:
		return errorf(InvalidArgs, false, fmt.Sprintf("fill at most %d per call", maxFormFields), "%d elements is too many", len(in.Elements))
	}
	for i, f := range in.Elements {
		if err := f.checkTarget(); err != nil {
			te := AsError(err)
			te.Message = fmt.Sprintf("elements[%d]: %s", i, te.Message)
			return te
		}
	}
	return nil
}

func fillForm(ctx context.Context, _ *Env, d *door, in fillFormArgs) (*Result, error) {
	filled := make([]filledField, 0, len(in.Elements))
	for i, f := range in.Elements {
		fctx, err := f.prepare(ctx, d.tab)
		var res *driver.FillResult
		if err == nil {
			res, err = d.tab.Fill(fctx, f.UID, f.Selector, f.Value)
		}
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
	return &Result{Data: changesMap{"filled": filled}}, nil
}

// fieldName names a field for a message: its uid, or its quoted selector.
func fieldName(f formField) string {
	if f.UID != "" {
		return f.UID
	}
	return fmt.Sprintf("%q", f.Selector)
}

func (in *typeTextArgs) check(context.Context, *Env) error {
	n := utf8.RuneCountInString(in.Text)
	switch {
	case n == 0:
		return errorf(InvalidArgs, false, "give the text to type; press_key presses a single key", "text is empty")
	case n > maxTypeRunes:
		return errorf(InvalidArgs, false, "use fill to set long text at once", "text is %d characters, over %d", n, maxTypeRunes)
	}
	if in.SubmitKey != "" {
		if _, err := input.ParseCombo(in.SubmitKey); err != nil {
			return err
		}
	}
	return oneElement(in.UID, in.Selector)
}

func typeText(ctx context.Context, _ *Env, d *door, in typeTextArgs) (*Result, error) {
	if err := d.tab.TypeText(ctx, in.UID, in.Selector, in.Text); err != nil {
		return nil, err
	}
	data := changesMap{"typed": utf8.RuneCountInString(in.Text)}
	if in.SubmitKey != "" {
		if err := d.tab.PressKey(ctx, "", "", in.SubmitKey); err != nil {
			return nil, err
		}
		data["submitKey"] = in.SubmitKey
	}
	return &Result{Data: data}, nil
}

func (in *pressKeyArgs) check(context.Context, *Env) error {
	if _, err := input.ParseCombo(in.Key); err != nil {
		return err
	}
	if in.Repeat < 0 || in.Repeat > maxKeyRepeat {
		return errorf(InvalidArgs, false, fmt.Sprintf("use 1-%d (0: once)", maxKeyRepeat), "repeat %d is out of range", in.Repeat)
	}
	return oneElement(in.UID, in.Selector)
}

func pressKey(ctx context.Context, _ *Env, d *door, in pressKeyArgs) (*Result, error) {
	n := max(in.Repeat, 1)
	for i := range n {
		if err := d.tab.PressKey(ctx, in.UID, in.Selector, in.Key); err != nil {
			if i > 0 {
				return nil, fmt.Errorf("press %d of %d: %w", i+1, n, err)
			}
			return nil, err
		}
	}
	data := changesMap{"key": in.Key}
	if n > 1 {
		data["repeat"] = n
	}
	return &Result{Data: data}, nil
}

func (in *selectOptionArgs) check(context.Context, *Env) error {
	if err := needElement(in.UID, in.Selector); err != nil {
		return err
	}
	if in.Values == nil {
		return errorf(InvalidArgs, false, "give the option values or labels to select", "values is missing")
	}
	return oneElement(in.UID, in.Selector)
}

func selectOption(ctx context.Context, _ *Env, d *door, in selectOptionArgs) (*Result, error) {
	sel, err := d.tab.SelectOptions(ctx, in.UID, in.Selector, in.Values)
	if err != nil {
		return nil, err
	}
	return &Result{Data: changesMap{"selected": sel}}, nil
}

func (in *uploadFileArgs) check(ctx context.Context, env *Env) error {
	if err := needElement(in.UID, in.Selector); err != nil {
		return err
	}
	paths := in.Paths
	if in.FilePath != "" {
		paths = append(paths, in.FilePath)
	}
	switch {
	case len(paths) == 0:
		return errorf(InvalidArgs, false, "give the files as paths", "paths is empty")
	case len(paths) > maxUploads:
		return errorf(InvalidArgs, false, fmt.Sprintf("give at most %d files", maxUploads), "%d files is too many", len(paths))
	}
	// Every path is checked before the page gets any.
	roots := env.uploadRoots(ctx)
	in.files = make([]string, len(paths))
	in.names = make([]string, len(paths))
	for i, p := range paths {
		abs, err := roots.Check(p)
		if err != nil {
			var pe *policy.PathError
			if errors.As(err, &pe) {
				return errorf(UnsafePath, false, "upload files from inside "+roots.String()+"; cdpkit's --upload-root flag sets these directories", "%s", pe.Error())
			}
			return err
		}
		in.files[i], in.names[i] = abs, filepath.Base(abs)
	}
	return oneElement(in.UID, in.Selector)
}

func uploadFile(ctx context.Context, env *Env, d *door, in uploadFileArgs) (*Result, error) {
	up, err := role[driver.Uploader](env, d.tab, "upload_file")
	if err != nil {
		return nil, err
	}
	if err := up.SetFiles(ctx, in.UID, in.Selector, in.files); err != nil {
		return nil, err
	}
	return &Result{Data: changesMap{"files": in.names}}, nil
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
