package tools

import "errors"

// The phases of a tool call, which its error names (Error.Phase), so an
// agent knows whether its action ran: before "action" it did not.
const (
	// PhaseArgs: the arguments were refused before any browser work.
	PhaseArgs = "args"
	// PhaseResolve: finding the browser and the tab (its target, lease,
	// renderer and dialog).
	PhaseResolve = "resolve"
	// PhaseQueue: waiting for the tab's turn behind other calls.
	PhaseQueue = "queue"
	// PhaseAction: the tool's own work.
	PhaseAction = "action"
	// PhaseSettle: noting the page before the action and reading what it
	// changed after.
	PhaseSettle = "settle"
)

// phaseError is an error of one phase of a call.
type phaseError struct {
	phase string
	err   error
}

func (e *phaseError) Error() string { return e.err.Error() }
func (e *phaseError) Unwrap() error { return e.err }

// inPhase marks err, if any, as failing in phase, unless it already says
// where it failed.
func inPhase(phase string, err error) error {
	var pe *phaseError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	return &phaseError{phase: phase, err: err}
}

// argsError is err, refused before any browser work, as the *Error a
// call returns.
func argsError(err error) *Error { return withPhase(AsError(err), inPhase(PhaseArgs, err)) }

// withPhase returns te with the phase err was marked with, if any.
func withPhase(te *Error, err error) *Error {
	var pe *phaseError
	if !errors.As(err, &pe) || te.Phase == pe.phase {
		return te
	}
	e := *te
	e.Phase = pe.phase
	return &e
}
