package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/input"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// Code is a stable, agent-facing error code. Codes are never renamed.
type Code string

// The error taxonomy shared by every front-end.
const (
	InvalidArgs         Code = "INVALID_ARGS"
	InvalidURL          Code = "INVALID_URL"
	URLBlocked          Code = "URL_BLOCKED"
	NavigationFailed    Code = "NAVIGATION_FAILED"
	Timeout             Code = "TIMEOUT"
	Cancelled           Code = "CANCELLED"
	TargetNotFound      Code = "TARGET_NOT_FOUND"
	TargetClosed        Code = "TARGET_CLOSED"
	TargetCrashed       Code = "TARGET_CRASHED"
	BrowserCrashed      Code = "BROWSER_CRASHED"
	NoBrowser           Code = "NO_BROWSER"
	ElementNotFound     Code = "ELEMENT_NOT_FOUND"
	RefStale            Code = "REF_STALE"
	RefNotFound         Code = "REF_NOT_FOUND"
	ElementHidden       Code = "ELEMENT_HIDDEN"
	ElementNotClickable Code = "ELEMENT_NOT_CLICKABLE"
	ElementNotTypeable  Code = "ELEMENT_NOT_TYPEABLE"
	KeyNotSupported     Code = "KEY_NOT_SUPPORTED"
	DialogOpen          Code = "DIALOG_OPEN"
	NoDialog            Code = "NO_DIALOG"
	EvalDisabled        Code = "EVAL_DISABLED"
	EvalError           Code = "EVAL_ERROR"
	BusyQueueFull       Code = "BUSY_QUEUE_FULL"
	ScreenshotTooLarge  Code = "SCREENSHOT_TOO_LARGE"
	UnsafePath          Code = "UNSAFE_PATH"
	IOError             Code = "IO_ERROR"
	SessionClosed       Code = "SESSION_CLOSED"
	Internal            Code = "INTERNAL"
)

// Error is a tool failure as an agent sees it: a stable code, a one-line
// message safe to show a model (no stack traces, no secrets), whether
// retrying can help, and a hint.
type Error struct {
	Code        Code   `json:"code"`
	Message     string `json:"message"`
	Recoverable bool   `json:"recoverable"`
	Hint        string `json:"hint,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("[%s] %s", e.Code, e.Message) }

// errorf returns an *Error; recoverable says whether a retry can succeed.
func errorf(code Code, recoverable bool, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Recoverable: recoverable, Hint: hint}
}

// AsError maps any error from a handler to the taxonomy.
func AsError(err error) *Error {
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	var nb *browser.NoBrowserError
	var tnf *browser.TargetNotFoundError
	var ne *browser.NavigationError
	var ub *policy.URLError
	var pe *policy.PathError
	var ioe *policy.IOError
	var ee *browser.ElementError
	var tl *browser.ScreenshotTooLargeError
	var ce *browser.CoveredError
	var nt *browser.NotTypeableError
	var oe *browser.OptionError
	var ke *input.KeyError
	var he *browser.HistoryEndError
	var doe *browser.DialogOpenError
	var wte *browser.WaitTimeoutError
	var eve *browser.EvalError
	var st *stepTimeout
	var qf *browser.QueueFullError
	switch {
	case errors.As(err, &tl):
		return &Error{Code: ScreenshotTooLarge, Message: fmt.Sprintf("even downscaled the screenshot is %d bytes, over the %d-byte limit", tl.Bytes, tl.Limit),
			Hint: "capture an element (uid or selector) or the viewport instead of the full page, use format jpeg or webp, or raise CDPKIT_MAX_IMAGE_BYTES"}
	case errors.As(err, &ee) && errors.As(err, &ce):
		return &Error{Code: ElementNotClickable, Message: ee.What() + " " + ce.Reason(), Recoverable: true,
			Hint: "dismiss what covers it first (its close button, or press Escape), or retry with force:true to click through the DOM"}
	case errors.As(err, &ee) && errors.Is(err, browser.ErrElementDisabled):
		return &Error{Code: ElementNotClickable, Message: ee.What() + " is disabled", Recoverable: true,
			Hint: "do what enables it first (such as filling required fields), or wait_for it to become enabled"}
	case errors.As(err, &ee) && errors.Is(err, browser.ErrElementOffscreen):
		return &Error{Code: ElementHidden, Message: ee.What() + " is outside the viewport, where scrolling does not bring it", Recoverable: true,
			Hint: "scroll its container (scroll with a direction), or retry with force:true to click through the DOM"}
	case errors.As(err, &ee) && errors.Is(err, browser.ErrElementNotVisible):
		return &Error{Code: ElementHidden, Message: fmt.Sprintf("%s is not rendered or has no size", ee.What()), Recoverable: true,
			Hint: "take a snapshot and pick a visible element"}
	case errors.As(err, &pe):
		return &Error{Code: UnsafePath, Message: pe.Error(), Hint: cmp.Or(pe.Hint, "give a path relative to the artifact dir, without ..")}
	case errors.As(err, &ioe):
		return &Error{Code: IOError, Message: ioe.Error(), Hint: ioHint(ioe)}
	case errors.As(err, &ee) && errors.Is(err, browser.ErrRefStale):
		return &Error{Code: RefStale, Message: fmt.Sprintf("%s belongs to a page state that is gone", ee.Ref), Recoverable: true,
			Hint: "take a new snapshot and use its refs"}
	case errors.As(err, &ee) && errors.Is(err, browser.ErrRefNotFound):
		return &Error{Code: RefNotFound, Message: fmt.Sprintf("%s was never issued in this tab", ee.Ref), Recoverable: true,
			Hint: "use a ref from this tab's latest snapshot"}
	case errors.As(err, &ee) && errors.Is(err, browser.ErrElementNotFound):
		return &Error{Code: ElementNotFound, Message: fmt.Sprintf("no element matches %s", ee.What()), Recoverable: true,
			Hint: "check the selector, or take a snapshot and use a ref"}
	case errors.As(err, &nt):
		return &Error{Code: ElementNotTypeable, Message: nt.What() + " " + nt.Reason, Recoverable: true, Hint: nt.Hint}
	case errors.As(err, &oe):
		return &Error{Code: InvalidArgs, Message: fmt.Sprintf("no option %q in the select; options: %s", oe.Want, oe.List()), Recoverable: true,
			Hint: "give an option's value or label as listed"}
	case errors.As(err, &ke):
		return &Error{Code: KeyNotSupported, Message: fmt.Sprintf("key %q is not supported", ke.Key), Recoverable: true, Hint: keyHint}
	case errors.As(err, &doe):
		return &Error{Code: DialogOpen, Message: dialogMessage(doe.Dialog), Recoverable: true,
			Hint: "answer it with handle_dialog (action accept or dismiss)"}
	case errors.Is(err, browser.ErrNoDialog):
		return &Error{Code: NoDialog, Message: "no JavaScript dialog waits for an answer in this tab",
			Hint: "alerts and beforeunload dialogs are answered automatically; a result's changes.dialog says so"}
	case errors.As(err, &st):
		return &Error{Code: Timeout, Message: st.message(), Recoverable: true,
			Hint: "the page or browser was slow; retry, or raise timeout_ms"}
	case errors.As(err, &qf):
		return &Error{Code: BusyQueueFull, Message: fmt.Sprintf("%d calls already wait for this tab", qf.Limit), Recoverable: true,
			Hint: "wait for the tab's calls to finish"}
	case errors.As(err, &wte):
		return &Error{Code: Timeout, Message: waitTimeoutMessage(wte), Recoverable: true,
			Hint: "raise timeout, or take a snapshot to see the page"}
	case errors.As(err, &eve):
		return &Error{Code: EvalError, Message: eve.Message, Hint: "fix the function; it runs in the page, such as () => document.title"}
	case errors.Is(err, browser.ErrInvalidArgument):
		return &Error{Code: InvalidArgs, Message: err.Error(), Hint: "see the tool's input schema"}
	case errors.As(err, &ub):
		code := URLBlocked
		if errors.Is(err, policy.ErrInvalidURL) {
			code = InvalidURL
		}
		return &Error{Code: code, Message: ub.Error(), Hint: ub.Hint}
	case errors.As(err, &nb):
		return &Error{Code: NoBrowser, Message: nb.Reason, Hint: nb.Hint}
	case errors.As(err, &tnf):
		return &Error{Code: TargetNotFound, Message: fmt.Sprintf("no tab matches %q (%d open)", tnf.Selector, tnf.Open),
			Recoverable: true, Hint: "call list_pages to see the open tabs, or new_page to open one"}
	case errors.Is(err, browser.ErrInvalidSelector):
		return &Error{Code: InvalidArgs, Message: err.Error(), Hint: "target is active, index:N, url:SUBSTR, title:SUBSTR or a tab id"}
	case errors.As(err, &he) && he.Forward:
		return &Error{Code: NavigationFailed, Message: "the tab is at the end of its history: there is no page to go forward to", Hint: "navigate with a url"}
	case errors.As(err, &he):
		return &Error{Code: NavigationFailed, Message: "the tab is at the start of its history: there is no page to go back to", Hint: "navigate with a url"}
	case errors.As(err, &ne):
		return &Error{Code: NavigationFailed, Message: fmt.Sprintf("could not load %s: %s", ne.URL, ne.Text), Recoverable: true,
			Hint: "check the URL and that the server is up"}
	case errors.Is(err, browser.ErrDialogLoop):
		return &Error{Code: TargetCrashed, Message: "the page opens JavaScript dialogs in a loop, so cdpkit stopped its renderer", Recoverable: true,
			Hint: "navigate_page to another url recovers the tab; this page loops again when loaded"}
	case errors.Is(err, browser.ErrTargetCrashed):
		return &Error{Code: TargetCrashed, Message: "the tab's renderer crashed", Recoverable: true,
			Hint: "navigate_page (a url, or type reload) recovers the tab"}
	case errors.Is(err, browser.ErrBrowserCrashed):
		return &Error{Code: BrowserCrashed, Message: "the browser crashed during the call", Recoverable: true,
			Hint: "the next call relaunches it"}
	case errors.Is(err, cdp.ErrDisconnected):
		return &Error{Code: BrowserCrashed, Message: "the browser went away during the call", Recoverable: true,
			Hint: "retry: the next call starts or reconnects the browser"}
	case errors.Is(err, cdp.ErrSessionClosed):
		return &Error{Code: TargetClosed, Message: "the tab closed during the call", Recoverable: true, Hint: "call list_pages"}
	case errors.Is(err, cdp.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: Timeout, Message: err.Error(), Recoverable: true,
			Hint: "the page or browser was slow; retry, or raise timeout_ms"}
	case errors.Is(err, context.Canceled):
		return &Error{Code: Cancelled, Message: "the call was cancelled", Recoverable: true}
	case errors.Is(err, browser.ErrScopeClosed):
		return &Error{Code: SessionClosed, Message: "this MCP session ended and its tabs were closed", Hint: "start a new session"}
	case errors.Is(err, browser.ErrClosed):
		return &Error{Code: SessionClosed, Message: "the server is shutting down"}
	}
	return &Error{Code: Internal, Message: err.Error(), Hint: "this is a cdpkit bug if it repeats; run with --log-level debug"}
}

// ioHint says what can fix a write the file system refused.
func ioHint(e *policy.IOError) string {
	switch {
	case errors.Is(e.Err, syscall.ENOSPC) || isQuota(e.Err):
		return "the disk that holds the artifact dir is full: free space there, or point CDPKIT_ARTIFACT_DIR at another disk; nothing was written"
	case errors.Is(e.Err, fs.ErrPermission) || isReadOnly(e.Err):
		return "cdpkit may not write there (a read-only file system or missing permission): fix the directory, or point CDPKIT_ARTIFACT_DIR elsewhere; nothing was written"
	}
	return "the file system refused the write; check the artifact dir's disk; nothing was written"
}
