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

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, cdpkit.ErrDialogOpen) tests a failure's code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// The codes a call can fail with, one sentinel each, for errors.Is:
//
//	if errors.Is(err, cdpkit.ErrDialogOpen) { tab.AcceptDialog(ctx, "") }
//
// Only their Code is set; the *Error a call returns carries the message,
// hint and phase. docs/errors.md says what each means.
var (
	ErrInvalidArgs           = &Error{Code: "INVALID_ARGS"}
	ErrInvalidURL            = &Error{Code: "INVALID_URL"}
	ErrURLBlocked            = &Error{Code: "URL_BLOCKED"}
	ErrHostUnresolved        = &Error{Code: "HOST_UNRESOLVED"}
	ErrNavigationFailed      = &Error{Code: "NAVIGATION_FAILED"}
	ErrTimeout               = &Error{Code: "TIMEOUT"}
	ErrCancelled             = &Error{Code: "CANCELLED"}
	ErrTargetNotFound        = &Error{Code: "TARGET_NOT_FOUND"}
	ErrTargetClosed          = &Error{Code: "TARGET_CLOSED"}
	ErrTargetCrashed         = &Error{Code: "TARGET_CRASHED"}
	ErrBrowserCrashed        = &Error{Code: "BROWSER_CRASHED"}
	ErrNoBrowser             = &Error{Code: "NO_BROWSER"}
	ErrElementNotFound       = &Error{Code: "ELEMENT_NOT_FOUND"}
	ErrRefStale              = &Error{Code: "REF_STALE"}
	ErrRefNotFound           = &Error{Code: "REF_NOT_FOUND"}
	ErrElementHidden         = &Error{Code: "ELEMENT_HIDDEN"}
	ErrElementNotClickable   = &Error{Code: "ELEMENT_NOT_CLICKABLE"}
	ErrElementNotTypeable    = &Error{Code: "ELEMENT_NOT_TYPEABLE"}
	ErrKeyNotSupported       = &Error{Code: "KEY_NOT_SUPPORTED"}
	ErrDialogOpen            = &Error{Code: "DIALOG_OPEN"}
	ErrNoDialog              = &Error{Code: "NO_DIALOG"}
	ErrEvalDisabled          = &Error{Code: "EVAL_DISABLED"}
	ErrEvalError             = &Error{Code: "EVAL_ERROR"}
	ErrBusyQueueFull         = &Error{Code: "BUSY_QUEUE_FULL"}
	ErrScreenshotTooLarge    = &Error{Code: "SCREENSHOT_TOO_LARGE"}
	ErrUnsafePath            = &Error{Code: "UNSAFE_PATH"}
	ErrIO                    = &Error{Code: "IO_ERROR"}
	ErrSessionClosed         = &Error{Code: "SESSION_CLOSED"}
	ErrLimitReached          = &Error{Code: "LIMIT_REACHED"}
	ErrLeaseConflict         = &Error{Code: "LEASE_CONFLICT"}
	ErrInternal              = &Error{Code: "INTERNAL"}
	ErrRecordingActive       = &Error{Code: "RECORDING_ACTIVE"}
	ErrNoRecording           = &Error{Code: "NO_RECORDING"}
	ErrFFmpegUnavailable     = &Error{Code: "FFMPEG_UNAVAILABLE"}
	ErrEncodeFailed          = &Error{Code: "ENCODE_FAILED"}
	ErrUnsupported           = &Error{Code: "UNSUPPORTED"}
	ErrLighthouseUnavailable = &Error{Code: "LIGHTHOUSE_UNAVAILABLE"}
	ErrAuditFailed           = &Error{Code: "AUDIT_FAILED"}
	ErrNoDisplay             = &Error{Code: "NO_DISPLAY"}
	ErrProfileInUse          = &Error{Code: "PROFILE_IN_USE"}
	ErrTraceActive           = &Error{Code: "TRACE_ACTIVE"}
	ErrNoTrace               = &Error{Code: "NO_TRACE"}
	ErrElementNotVisible     = &Error{Code: "ELEMENT_NOT_VISIBLE"}
	ErrElementDisabled       = &Error{Code: "ELEMENT_DISABLED"}
	ErrAmbiguousTarget       = &Error{Code: "AMBIGUOUS_TARGET"}
	ErrBrowserBusy           = &Error{Code: "BROWSER_BUSY"}
)

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
