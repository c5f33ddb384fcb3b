package cdpkit

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// Tab is one open tab of a Browser, named by its ID. Its methods may be
// called from any goroutine: state-changing calls on a tab run one at a
// time in arrival order (a bounded queue; BUSY_QUEUE_FULL past it), and
// reads wait only for a navigation in flight. Each method's ctx bounds
// that call, within Options.Timeout; a call cut short by ctx fails with
// TIMEOUT or CANCELLED and leaves the tab usable.
type Tab struct {
	b     *Browser
	id    string
	lease string // the lease token every call passes, for a tab from Claim
}

// ID is the tab's ID, stable while it is open; it is also a selector for
// Browser.Tab.
func (t *Tab) ID() string { return t.id }

// Element names the element an action works on: a ref from a snapshot
// (Ref) or a CSS selector (CSS).
type Element struct {
	Ref      string // a snapshot ref such as "e12"
	Selector string // a CSS selector, when Ref is empty
}

// Ref names an element by a snapshot ref, such as "e12" (or "@e12"). A
// ref stays valid while its node lives; after the document changes it
// fails with REF_STALE.
func Ref(ref string) Element { return Element{Ref: strings.TrimPrefix(ref, "@")} }

// CSS names an element by a CSS selector: the first match.
func CSS(selector string) Element { return Element{Selector: selector} }

func (e Element) args(m map[string]any) map[string]any {
	m["uid"], m["selector"] = e.Ref, e.Selector
	return m
}

// Changes is what an action changed: where the tab went, the tabs it
// opened or closed, the interactive elements added (+), removed (-) or
// changed (~) since the last snapshot of the tab, and a JavaScript dialog
// it opened.
type Changes struct {
	URL        string    `json:"url,omitempty"`   // the new URL, when it changed
	Title      string    `json:"title,omitempty"` // the new title, when it changed
	Navigated  bool      `json:"navigated,omitempty"`
	TabsOpened []TabInfo `json:"tabsOpened,omitempty"`
	TabsClosed []string  `json:"tabsClosed,omitempty"`
	Elements   string    `json:"elements,omitempty"`
	Dialog     *Dialog   `json:"dialog,omitempty"`
}

// String is the changes as short lines, for logs and examples.
func (c *Changes) String() string {
	if c == nil {
		return "no changes"
	}
	var b strings.Builder
	if c.Navigated {
		b.WriteString("navigated to " + c.URL + "\n")
	}
	if c.Title != "" {
		b.WriteString("title: " + c.Title + "\n")
	}
	for _, t := range c.TabsOpened {
		b.WriteString("tab opened: " + t.URL + "\n")
	}
	for _, id := range c.TabsClosed {
		b.WriteString("tab closed: " + id + "\n")
	}
	if c.Dialog != nil {
		b.WriteString("dialog (" + c.Dialog.Type + ", " + c.Dialog.Handled + "): " + c.Dialog.Message + "\n")
	}
	b.WriteString(c.Elements)
	if b.Len() == 0 {
		return "no changes"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Dialog is a JavaScript dialog: one that waits for an answer (Handled
// "open"), or one answered without the caller.
type Dialog struct {
	Type          string `json:"type"` // alert, confirm, prompt or beforeunload
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
	Handled       string `json:"handled"` // open, accepted or dismissed
}

// Page is where a navigation ended.
type Page struct {
	URL     string   `json:"url"` // after redirects
	Title   string   `json:"title"`
	Status  int      `json:"status,omitempty"` // the document's HTTP status; 0 when none
	Changes *Changes `json:"changes,omitempty"`
}

// Navigate loads url in the tab and waits for its load event. ctx bounds
// the load and reading what changed.
func (t *Tab) Navigate(ctx context.Context, url string) (*Page, error) {
	var p Page
	if err := t.call(ctx, "navigate_page", map[string]any{"url": url}, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// SnapshotOptions narrow a snapshot. Nil means the whole page.
type SnapshotOptions struct {
	Interactive bool   // only actionable elements
	Scope       string // a ref or CSS selector of the subtree to show
	MaxChars    int    // cut beyond this many characters; zero means 24,000
}

// Snapshot is the page as compact lines, one per node, with refs such as
// `e12 button "Save"` for the elements an action can name.
type Snapshot struct {
	URL       string `json:"url"`
	Title     string `json:"title"`
	Refs      int    `json:"refs"` // how many lines carry a ref
	Truncated bool   `json:"truncated,omitempty"`
	Text      string `json:"-"`
}

var refLine = regexp.MustCompile(`^\s*(?:- )?(e[0-9]+)\b`)

// RefOf returns the ref of the first line that has a ref and contains
// text, such as RefOf(`button "Save"`); "" when none does.
func (s *Snapshot) RefOf(text string) string {
	for _, line := range strings.Split(s.Text, "\n") {
		if m := refLine.FindStringSubmatch(line); m != nil && strings.Contains(line, text) {
			return m[1]
		}
	}
	return ""
}

// Snapshot reads the page. Refs it prints stay valid while their nodes
// live. ctx bounds the call.
func (t *Tab) Snapshot(ctx context.Context, o *SnapshotOptions) (*Snapshot, error) {
	if o == nil {
		o = &SnapshotOptions{}
	}
	res, err := t.b.run(ctx, "take_snapshot", map[string]any{"target": t.id, "lease": t.lease, "interactive": o.Interactive, "scope": o.Scope,
		"maxChars": o.MaxChars})
	if err != nil {
		return nil, err
	}
	var s Snapshot
	if err := decode(res.Data, &s); err != nil {
		return nil, err
	}
	s.Text = res.Text
	return &s, nil
}

// Click clicks el with real mouse events at a point where it is not
// covered, and reports what changed. A covered element fails with
// ELEMENT_NOT_CLICKABLE naming what covers it.
func (t *Tab) Click(ctx context.Context, el Element) (*Changes, error) {
	return t.act(ctx, "click", el.args(map[string]any{}))
}

// Fill sets a field's value as a user's edit would: text inputs,
// textareas, contenteditable, selects (by value or label), checkboxes and
// radios ("true"/"false").
func (t *Tab) Fill(ctx context.Context, el Element, value string) (*Changes, error) {
	return t.act(ctx, "fill", el.args(map[string]any{"value": value}))
}

// Type types text as key events into the focused element.
func (t *Tab) Type(ctx context.Context, text string) (*Changes, error) {
	return t.act(ctx, "type_text", map[string]any{"text": text})
}

// Press presses a key or combo, such as "Enter" or "Control+A", in the
// focused element.
func (t *Tab) Press(ctx context.Context, key string) (*Changes, error) {
	return t.act(ctx, "press_key", map[string]any{"key": key})
}

// Select selects the options of a <select> given by value or label, and
// returns the values now selected.
func (t *Tab) Select(ctx context.Context, el Element, values ...string) ([]string, *Changes, error) {
	var out struct {
		Selected []string `json:"selected"`
		Changes  *Changes `json:"changes"`
	}
	if values == nil {
		values = []string{}
	}
	if err := t.call(ctx, "select_option", el.args(map[string]any{"values": values}), &out); err != nil {
		return nil, nil, err
	}
	return out.Selected, out.Changes, nil
}

// WaitCondition is what WaitFor waits for: any one of the conditions set.
type WaitCondition struct {
	Text     []string      // any of these texts appears
	TextGone string        // this text disappears
	Selector string        // an element matching this CSS selector reaches State
	State    string        // visible (default), hidden, attached or detached
	URL      string        // the URL contains this, or matches /regex/flags
	Timeout  time.Duration // zero means 5 s; ctx may cut it shorter
}

// WaitMatch is the condition that held: one of Text, TextGone or
// Selector (with its State) is set; URL is the page's URL when the
// condition was a URL.
type WaitMatch struct {
	Text     string `json:"text,omitempty"`
	TextGone string `json:"textGone,omitempty"`
	Selector string `json:"selector,omitempty"`
	State    string `json:"state,omitempty"`
	URL      string `json:"url,omitempty"`
}

// WaitFor waits until a condition holds and returns which did, or fails
// with TIMEOUT naming what was missing. A JavaScript dialog that opens
// meanwhile ends the wait with DIALOG_OPEN.
func (t *Tab) WaitFor(ctx context.Context, c WaitCondition) (*WaitMatch, error) {
	var out struct {
		Matched WaitMatch `json:"matched"`
	}
	args := map[string]any{"textGone": c.TextGone, "selector": c.Selector, "state": c.State, "url": c.URL,
		"timeout": int(c.Timeout / time.Millisecond)}
	if len(c.Text) > 0 {
		args["text"] = c.Text
	}
	if err := t.call(ctx, "wait_for", args, &out); err != nil {
		return nil, err
	}
	return &out.Matched, nil
}

// ScreenshotOptions say what to capture. Nil means the viewport as PNG.
type ScreenshotOptions struct {
	FullPage bool
	Element  *Element // capture only this element
	Format   string   // png (default), jpeg or webp
	Quality  int      // jpeg and webp, 1-100
}

// Screenshot is a saved capture.
type Screenshot struct {
	Path   string `json:"path"` // the file in Browser.ArtifactDir
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Data   []byte `json:"-"` // the file's bytes
}

// maxScreenshotFile bounds the saved screenshot Screenshot reads back: far
// over any capture Chromium makes (a full page is capped in pixels).
const maxScreenshotFile = 512 << 20

// Screenshot captures the tab, saves it in the artifact dir and returns
// it. Large pages are downscaled to stay within cdpkit's limits, never
// cropped.
func (t *Tab) Screenshot(ctx context.Context, o *ScreenshotOptions) (*Screenshot, error) {
	if o == nil {
		o = &ScreenshotOptions{}
	}
	args := map[string]any{"fullPage": o.FullPage, "format": o.Format, "quality": o.Quality}
	if o.Element != nil {
		o.Element.args(args)
	}
	var s Screenshot
	if err := t.call(ctx, "take_screenshot", args, &s); err != nil {
		return nil, err
	}
	data, err := t.b.env.Artifacts.ReadFile(ctx, s.Path, maxScreenshotFile)
	if err != nil {
		return nil, &Error{Code: "INTERNAL", Message: "reading the saved screenshot: " + err.Error()}
	}
	s.Data = data
	return &s, nil
}

// Evaluate runs a JavaScript function in the page, such as
// "() => document.title" or "(el) => el.value" with Ref("e3") as an
// argument (an Element argument passes that element), and returns its
// awaited value as JSON; nil, without an error, when the page navigated
// before the function returned. It is refused with EVAL_DISABLED unless
// Options.AllowEval is set, exactly as the evaluate_script tool is, and
// values past ~25,000 characters are elided.
func (t *Tab) Evaluate(ctx context.Context, function string, args ...any) (json.RawMessage, error) {
	list := make([]any, len(args))
	for i, a := range args {
		if el, ok := a.(Element); ok && el.Ref != "" {
			list[i] = map[string]any{"uid": el.Ref}
			continue
		}
		list[i] = a
	}
	m := map[string]any{"function": function}
	if len(list) > 0 {
		m["args"] = list
	}
	var out struct {
		Value json.RawMessage `json:"value"`
		Note  string          `json:"note"`
	}
	if err := t.call(ctx, "evaluate_script", m, &out); err != nil {
		return nil, err
	}
	return out.Value, nil
}

// Close closes the tab. It does not wait for calls in flight on the tab,
// which fail.
func (t *Tab) Close(ctx context.Context) error {
	return t.b.call(ctx, "close_page", map[string]any{"target": t.id, "lease": t.lease}, nil)
}

// act runs a state-changing tool on the tab and returns its changes.
func (t *Tab) act(ctx context.Context, name string, args map[string]any) (*Changes, error) {
	var out struct {
		Changes *Changes `json:"changes"`
	}
	if err := t.call(ctx, name, args, &out); err != nil {
		return nil, err
	}
	return out.Changes, nil
}

// call runs a tool on the tab.
func (t *Tab) call(ctx context.Context, name string, args map[string]any, out any) error {
	args["target"], args["lease"] = t.id, t.lease
	return t.b.call(ctx, name, args, out)
}

// decode turns a tool's data into out.
func decode(data, out any) error {
	raw, err := json.Marshal(data)
	if err == nil {
		err = json.Unmarshal(raw, out)
	}
	if err != nil {
		return &Error{Code: "INTERNAL", Message: "decoding a result: " + err.Error(), Hint: "this is a cdpkit bug"}
	}
	return nil
}
