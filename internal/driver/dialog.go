package driver

import (
	"errors"
	"fmt"
)

// Dialog types, as Page.javascriptDialogOpening names them.
const (
	DialogAlert        = "alert"
	DialogConfirm      = "confirm"
	DialogPrompt       = "prompt"
	DialogBeforeUnload = "beforeunload"
)

// Dialog states, in [Dialog.Handled].
const (
	DialogOpen      = "open" // waiting for an answer
	DialogAccepted  = "accepted"
	DialogDismissed = "dismissed"
)

// Dialog is a JavaScript dialog (alert, confirm, prompt or beforeunload).
type Dialog struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	// DefaultPrompt is a prompt's default text.
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
	// Handled is DialogOpen while the dialog waits for an answer, then
	// DialogAccepted or DialogDismissed.
	Handled string `json:"handled"`
	// Earlier counts the dialogs that closed before this one since the last
	// report, in [TabDriver.DialogNote] only.
	Earlier int `json:"earlier,omitempty"`
}

// DialogPolicy says which dialogs cdpkit answers by itself. A beforeunload
// dialog is always accepted, so that it never blocks a navigation or a
// close.
type DialogPolicy string

// Dialog policies.
const (
	// DialogsReport, the default, accepts alerts and leaves confirm and
	// prompt dialogs open for the agent to answer.
	DialogsReport DialogPolicy = "report"
	// DialogsAccept accepts every dialog; a prompt gets its default text.
	DialogsAccept DialogPolicy = "accept"
	// DialogsDismiss dismisses every dialog but beforeunload.
	DialogsDismiss DialogPolicy = "dismiss"
)

// ParseDialogPolicy parses "report", "accept" or "dismiss"; "" is
// DialogsReport.
func ParseDialogPolicy(s string) (DialogPolicy, error) {
	switch p := DialogPolicy(s); p {
	case "":
		return DialogsReport, nil
	case DialogsReport, DialogsAccept, DialogsDismiss:
		return p, nil
	}
	return "", fmt.Errorf("%w: dialog policy %q: want report, accept or dismiss", ErrInvalidArgument, s)
}

// Dialog errors.
var (
	// ErrDialogOpen means a JavaScript dialog waits for an answer, so the
	// page can run nothing until [TabDriver.HandleDialog] answers it.
	ErrDialogOpen = errors.New("browser: a JavaScript dialog is open")
	// ErrNoDialog means no dialog waits for an answer.
	ErrNoDialog = errors.New("browser: no JavaScript dialog is open")
)

// DialogOpenError is [ErrDialogOpen] with the dialog.
type DialogOpenError struct {
	Dialog Dialog
}

func (e *DialogOpenError) Error() string {
	return fmt.Sprintf("browser: a JavaScript %s dialog is open: %q", e.Dialog.Type, e.Dialog.Message)
}

func (e *DialogOpenError) Unwrap() error { return ErrDialogOpen }
