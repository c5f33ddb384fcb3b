package driver

import (
	"encoding/json"
	"errors"
)

// EvalArg is one argument of [TabDriver.Evaluate]: the element a ref names, or a
// JSON value.
type EvalArg struct {
	Ref   string          // "e12": the element, passed as its DOM node
	Value json.RawMessage // used when Ref is empty; empty means undefined
}

// EvalLimits bound a serialized value. Past them values are elided and
// the result says it was truncated.
type EvalLimits struct {
	Depth int // levels of nesting shown
	Items int // elements of an array, map or set, or keys of an object
	Chars int // the whole value, as JSON
}

// Serialization limits for a value shown inline and one written to a file.
var (
	EvalInline = EvalLimits{Depth: 6, Items: 100, Chars: 25_000}
	EvalFile   = EvalLimits{Depth: 20, Items: 10_000, Chars: 5_000_000}
)

// EvalResult is what a function returned, serialized in the page as JSON.
// Values JSON lacks read as strings: "[undefined]", "[NaN]",
// "[Infinity]", "12n" (BigInt), "[Date 2024-05-01T10:00:00.000Z]",
// "[TypeError: x is not a function]", "[Function name]", "[Circular]",
// "<button#save.primary>" (a DOM node); a Map is {"[Map]": {…}} (or
// {"[Map]": [[key, value], …]} when a key is not a string), a Set
// {"[Set]": […]}.
type EvalResult struct {
	Value     json.RawMessage `json:"value,omitempty"`
	Truncated bool            `json:"truncated,omitempty"` // limits elided part of Value
	// Navigated says the page navigated before the function returned, so
	// there is no value; URL is where the page is now.
	Navigated bool   `json:"navigated,omitempty"`
	URL       string `json:"url,omitempty"`
}

// ErrEvalException means the evaluated function threw or its promise
// rejected.
var ErrEvalException = errors.New("browser: the function threw")

// EvalError is [ErrEvalException] with the exception's message (its first
// line: no stack).
type EvalError struct {
	Message string
}

func (e *EvalError) Error() string { return "browser: the function threw: " + e.Message }

func (e *EvalError) Unwrap() error { return ErrEvalException }
