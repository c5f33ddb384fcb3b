package driver

// DefaultTextChars is the text [TabDriver.Text] returns when TextOptions.MaxChars
// is zero.
const DefaultTextChars = 24_000

// TextOptions says what [TabDriver.Text] reads.
type TextOptions struct {
	// Ref ("e12") or, when Ref is empty, Selector names the element to
	// read; with neither, Text reads the page.
	Ref      string
	Selector string
	// MaxChars caps the text returned; 0 means DefaultTextChars.
	MaxChars int
}

// TextResult is what [TabDriver.Text] read.
type TextResult struct {
	Text string `json:"-"`
	// Chars is the length of the whole text, as JavaScript counts it.
	Chars     int  `json:"chars"`
	Truncated bool `json:"truncated,omitempty"`
	// Field is "input", "textarea" or "select" when a form field's value
	// was read: a select's selected options' labels, a checkbox's or
	// radio's "checked" or "unchecked".
	Field string `json:"field,omitempty"`
	// Password says the element is a password field, which is never read.
	Password bool `json:"password,omitempty"`
	// Unchecked says the hidden-text check stopped short (too many
	// elements, or too many hidden) and what it did not check is left out.
	Unchecked bool `json:"unchecked,omitempty"`
}

// DocumentState is where a tab is and how far its document has loaded.
type DocumentState struct {
	URL        string `json:"url"`
	Title      string `json:"title"`
	ReadyState string `json:"readyState,omitempty"` // loading, interactive or complete
}
