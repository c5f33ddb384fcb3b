package driver

// PointOptions is a mouse action at a point of the viewport, in CSS
// pixels, for agents that see the page as an image rather than as refs.
type PointOptions struct {
	X, Y float64
	// Button is "left" (the default), "right" or "middle".
	Button string
	// Clicks is 1 (the default), 2 for a double click, or 3.
	Clicks int
	// Modifiers are the keys held: a bit field of input.ModAlt, ModCtrl,
	// ModMeta and ModShift.
	Modifiers int64
}

// PointResult says where a mouse action went and what was there.
type PointResult struct {
	X, Y float64 // CSS pixels of the viewport
	// Hit names the element at the point before the action, CSS-like:
	// `button#save "Save"`; "nothing" past the page's end.
	Hit string
	// Dialog is set when the action opened a JavaScript dialog that waits
	// for an answer.
	Dialog bool
}
