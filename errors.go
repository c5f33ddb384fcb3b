package cdpkit

import (
	"errors"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// Error is a failed call, as MCP and the CLI report it: a stable Code
// (such as "REF_STALE" or "TIMEOUT"; docs/errors.md lists them all), a
// one-line Message safe to show a model, whether retrying can help
// (Recoverable), and a Hint saying what to do. Every method of this
// package returns its errors as *Error; use errors.As to read one.
type Error struct {
	Code        string `json:"code"`
	Message     string `json:"message"`
	Recoverable bool   `json:"recoverable"`
	Hint        string `json:"hint,omitempty"`
	// Phase says where in the call it failed: "args" (refused before any
	// browser work), "resolve" (finding the browser and the tab), "queue"
	// (waiting for the tab), "action" (the work itself) or "settle"
	// (reading what the action changed); before "action" nothing was done.
	Phase string `json:"phase,omitempty"`
}

// Error returns "[CODE] message", as the CLI prints it.
func (e *Error) Error() string { return "[" + e.Code + "] " + e.Message }

// asError maps any error to an *Error with the tools' taxonomy.
func asError(err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	te := tools.AsError(err)
	return &Error{Code: string(te.Code), Message: te.Message, Recoverable: te.Recoverable, Hint: te.Hint, Phase: te.Phase}
}
