package driver

import (
	"fmt"
	"strings"
)

// Option is one option of a <select>.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// OptionError names the option asked for and lists the first options of
// the <select> (up to maxListedOptions), with how many there are.
type OptionError struct {
	Ref     string
	Want    string
	Options []Option
	Total   int
}

// Error leaves out Want, which may be typed text that must not be logged.
func (e *OptionError) Error() string { return "browser: no such option in the select" }

func (e *OptionError) Unwrap() error { return ErrOptionNotFound }

// List formats the options for a message: `"Japan" (jp), "Peru"`, and
// "(and N more)" past the first ones.
func (e *OptionError) List() string {
	var b strings.Builder
	for i, o := range e.Options {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", o.Label)
		if o.Value != o.Label {
			fmt.Fprintf(&b, " (%s)", o.Value)
		}
	}
	if n := e.Total - len(e.Options); n > 0 {
		fmt.Fprintf(&b, " (and %d more)", n)
	}
	if e.Total == 0 {
		b.WriteString("none")
	}
	return b.String()
}
