package cdpkit

import "context"

// Hover moves the mouse over el, found and waited for as Click does,
// and reports what changed (a menu that opened, say).
func (t *Tab) Hover(ctx context.Context, el Element) (*Changes, error) {
	return t.act(ctx, "hover", el.args(map[string]any{}))
}

// ScrollOptions say where to scroll: by Direction (up, down, left,
// right, top or bottom; Pixels far, default 80% of the viewport), to an
// Element, or to the page position X, Y (either alone keeps the other
// axis). The zero value scrolls down.
type ScrollOptions struct {
	Direction string
	Pixels    float64
	Element   *Element
	X, Y      *float64
}

// ScrollPosition is where a scroll ended, in CSS pixels.
type ScrollPosition struct {
	ScrollX        float64  `json:"scrollX"`
	ScrollY        float64  `json:"scrollY"`
	PageWidth      float64  `json:"pageWidth"`
	PageHeight     float64  `json:"pageHeight"`
	ViewportWidth  float64  `json:"viewportWidth"`
	ViewportHeight float64  `json:"viewportHeight"`
	Changes        *Changes `json:"changes,omitempty"`
}

// Scroll scrolls the page (or brings an element into view) and returns
// where it ended. Nil scrolls down.
func (t *Tab) Scroll(ctx context.Context, o *ScrollOptions) (*ScrollPosition, error) {
	if o == nil {
		o = &ScrollOptions{}
	}
	args := map[string]any{"direction": o.Direction, "pixels": o.Pixels}
	if o.Element != nil {
		o.Element.args(args)
	}
	if o.X != nil {
		args["x"] = *o.X
	}
	if o.Y != nil {
		args["y"] = *o.Y
	}
	if args["direction"] == "" && o.Element == nil && o.X == nil && o.Y == nil {
		args["direction"] = "down"
	}
	var p ScrollPosition
	if err := t.call(ctx, "scroll", args, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// PressOn presses a key or combo after focusing el, repeat times (zero
// means once).
func (t *Tab) PressOn(ctx context.Context, el Element, key string, repeat int) (*Changes, error) {
	return t.act(ctx, "press_key", el.args(map[string]any{"key": key, "repeat": repeat}))
}

// Upload gives files to a file input (el), as a user choosing them
// would. Each path must lie in Options.UploadRoots (by default the
// artifact dir and the working directory), else UNSAFE_PATH.
func (t *Tab) Upload(ctx context.Context, el Element, paths ...string) (*Changes, error) {
	if paths == nil {
		paths = []string{}
	}
	return t.act(ctx, "upload_file", el.args(map[string]any{"paths": paths}))
}

// Field is one field FillForm fills: an element and its value, as Fill
// takes them.
type Field struct {
	Element
	Value string
}

// FillForm fills fields in order, as Fill does each; it stops at the
// first that fails, leaving the ones before filled.
func (t *Tab) FillForm(ctx context.Context, fields ...Field) (*Changes, error) {
	list := make([]map[string]any, len(fields))
	for i, f := range fields {
		m := map[string]any{"value": f.Value}
		if f.Ref != "" {
			m["uid"] = f.Ref
		} else {
			m["selector"] = f.Selector
		}
		list[i] = m
	}
	return t.act(ctx, "fill_form", map[string]any{"elements": list})
}

// TextOptions narrow Text. Nil means the whole page.
type TextOptions struct {
	Element  *Element // only this element's text (or a field's value)
	MaxChars int      // cut beyond this many characters; zero means 24,000
}

// PageText is the visible text of the page or an element: what a user
// reads, hidden text left out; a field's value (never a password's).
type PageText struct {
	Text      string `json:"-"`
	Chars     int    `json:"chars"`
	Truncated bool   `json:"truncated"`
	Field     string `json:"field,omitempty"` // the kind of field whose value Text is
	Note      string `json:"note,omitempty"`
}

// Text reads the visible text of the tab, or of o.Element.
func (t *Tab) Text(ctx context.Context, o *TextOptions) (*PageText, error) {
	if o == nil {
		o = &TextOptions{}
	}
	args := map[string]any{"target": t.id, "lease": t.lease, "maxChars": o.MaxChars}
	if o.Element != nil {
		o.Element.args(args)
	}
	res, err := t.b.run(ctx, "get_text", args)
	if err != nil {
		return nil, err
	}
	var p PageText
	if err := decode(res.Data, &p); err != nil {
		return nil, err
	}
	p.Text = res.Text
	return &p, nil
}

// PageInfo is where the tab is now.
type PageInfo struct {
	URL        string `json:"url"`
	Title      string `json:"title"`
	ReadyState string `json:"readyState"` // loading, interactive or complete
}

// Info returns the tab's URL, title and document ready state.
func (t *Tab) Info(ctx context.Context) (*PageInfo, error) {
	var p PageInfo
	if err := t.call(ctx, "get_url", map[string]any{}, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// PDFOptions say how to print. Nil means portrait, without backgrounds,
// every page, to a new file in the artifact dir.
type PDFOptions struct {
	Path            string // file name in the artifact dir, ending in .pdf
	Landscape       bool
	PrintBackground bool
	PageRanges      string // such as "1-3, 5"; "" means all
}

// File is a file cdpkit saved in the artifact dir.
type File struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// PDF prints the tab to a PDF file in the artifact dir, as the browser's
// print dialog would.
func (t *Tab) PDF(ctx context.Context, o *PDFOptions) (*File, error) {
	if o == nil {
		o = &PDFOptions{}
	}
	var f File
	err := t.call(ctx, "save_pdf", map[string]any{"filePath": o.Path, "landscape": o.Landscape,
		"printBackground": o.PrintBackground, "pageRanges": o.PageRanges}, &f)
	if err != nil {
		return nil, err
	}
	return &f, nil
}
