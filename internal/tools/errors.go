package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"syscall"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
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
	HostUnresolved      Code = "HOST_UNRESOLVED"
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
	LimitReached        Code = "LIMIT_REACHED"
	LeaseConflict       Code = "LEASE_CONFLICT"
	Internal            Code = "INTERNAL"
	RecordingActive     Code = "RECORDING_ACTIVE"
	NoRecording         Code = "NO_RECORDING"
	FFmpegUnavailable   Code = "FFMPEG_UNAVAILABLE"
	EncodeFailed        Code = "ENCODE_FAILED"
	Unsupported         Code = "UNSUPPORTED"

	LighthouseUnavailable Code = "LIGHTHOUSE_UNAVAILABLE"
	AuditFailed           Code = "AUDIT_FAILED"

	NoDisplay    Code = "NO_DISPLAY"
	ProfileInUse Code = "PROFILE_IN_USE"
	TraceActive  Code = "TRACE_ACTIVE"
	NoTrace      Code = "NO_TRACE"

	ElementNotVisible Code = "ELEMENT_NOT_VISIBLE"
	ElementDisabled   Code = "ELEMENT_DISABLED"
	AmbiguousTarget   Code = "AMBIGUOUS_TARGET"
	BrowserBusy       Code = "BROWSER_BUSY"
)

// Error is a tool failure as an agent sees it: a stable code, a one-line
// message safe to show a model (no stack traces, no secrets), whether
// retrying can help, and a hint.
type Error struct {
	Code        Code   `json:"code"`
	Message     string `json:"message"`
	Recoverable bool   `json:"recoverable"`
	Hint        string `json:"hint,omitempty"`
	// Phase says where in the call it failed: args, resolve, queue,
	// action or settle (see phase.go); "" outside a tool call.
	Phase string `json:"phase,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("[%s] %s", e.Code, e.Message) }

// errorf returns an *Error; recoverable says whether a retry can succeed.
func errorf(code Code, recoverable bool, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Recoverable: recoverable, Hint: hint}
}

// AsError maps any error from a handler to the taxonomy, by the rules
// below: see typedRules.
func AsError(err error) *Error {
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	if e := walkErr(err, func(link error) *Error {
		if rule := ruleFor(link); rule != nil {
			return rule(err, link)
		}
		return nil
	}); e != nil {
		return e
	}
	return &Error{Code: Internal, Message: err.Error(), Hint: "this is a cdpkit bug if it repeats; run with --log-level debug"}
}

// ruleFor returns link's rule: by its type for a typed error, by its
// value for a sentinel (at most one sentinel equals it).
func ruleFor(link error) errorRule {
	if r, ok := typedRules[reflect.TypeOf(link)]; ok {
		return r
	}
	for _, s := range sentinelRules {
		if link == s.err {
			return s.rule
		}
	}
	return nil
}

// walkErr visits err's chain outermost first (and, where an error wraps
// several, left to right) until visit returns an Error.
func walkErr(err error, visit func(error) *Error) *Error {
	if err == nil {
		return nil
	}
	if e := visit(err); e != nil {
		return e
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return walkErr(u.Unwrap(), visit)
	case interface{ Unwrap() []error }:
		for _, inner := range u.Unwrap() {
			if e := walkErr(inner, visit); e != nil {
				return e
			}
		}
	}
	return nil
}

// errorRule renders err, whose chain holds link, as an Error; nil declines,
// and the walk goes on inside link.
type errorRule func(err, link error) *Error

// typedRules and sentinelRules map each error the tools layer knows, a
// typed error by its type or a sentinel by its value, to its agent-facing
// form; init fills them. AsError walks an error's chain outermost first and
// applies the first link's rule that does not decline, so which rule wins
// follows from how the error is wrapped (a step timeout around a deadline,
// an element error around its cause), never from the order of the table.
// A rule declines when a more telling cause lies deeper: a disconnect
// caused by a crash is a crash.
var (
	typedRules    = map[reflect.Type]errorRule{}
	sentinelRules []struct {
		err  error
		rule errorRule
	}
)

// typed adds the rule for the typed error E.
func typed[E error](rule func(err error, e E) *Error) {
	typedRules[reflect.TypeFor[E]()] = func(err, link error) *Error { return rule(err, link.(E)) }
}

// sentinel adds the rule for a sentinel error.
func sentinel(s error, rule errorRule) {
	sentinelRules = append(sentinelRules, struct {
		err  error
		rule errorRule
	}{s, rule})
}

// onElement applies rule to the element error around err; it declines
// without one.
func onElement(rule func(ee *driver.ElementError) *Error) errorRule {
	return func(err, _ error) *Error {
		var ee *driver.ElementError
		if !errors.As(err, &ee) {
			return nil
		}
		return rule(ee)
	}
}

// deeperCause reports whether err holds a crash or a closed tab or
// connection, which tell more than the timeout, cancellation or
// disconnect around them.
func deeperCause(err error, except error) bool {
	for _, s := range []error{driver.ErrTargetCrashed, driver.ErrBrowserCrashed, driver.ErrDisconnected, driver.ErrSessionClosed} {
		if s != except && errors.Is(err, s) {
			return true
		}
	}
	return false
}

const retryHint = "the page or browser was slow; retry, or raise timeout_ms"

// hungHint is what recovers a tab whose page runs a script that never
// yields: its renderer answers nothing, so only closing the tab helps
// (navigating it within its site reuses the busy renderer).
const hungHint = "if every call on this tab times out, its page is hung (a script that never yields): close_page closes the tab and new_page opens a fresh one"

// tabRetryHint is TIMEOUT's hint for a call on a tab.
const tabRetryHint = retryHint + "; " + hungHint

func init() {
	typed(func(_ error, e *driver.ScreenshotTooLargeError) *Error {
		return &Error{Code: ScreenshotTooLarge, Message: fmt.Sprintf("even downscaled the screenshot is %d bytes, over the %d-byte limit", e.Bytes, e.Limit),
			Hint: "capture an element (uid or selector) or the viewport instead of the full page, use format jpeg or webp, or raise CDPKIT_MAX_IMAGE_BYTES"}
	})
	typed(func(err error, ce *driver.CoveredError) *Error {
		var ee *driver.ElementError
		if !errors.As(err, &ee) {
			return nil
		}
		return &Error{Code: ElementNotClickable, Message: ee.What() + " " + ce.Reason(), Recoverable: true,
			Hint: "dismiss what covers it first (its close button, or press Escape), or retry with force:true to click through the DOM"}
	})
	sentinel(driver.ErrElementDisabled, onElement(func(ee *driver.ElementError) *Error {
		return &Error{Code: ElementNotClickable, Message: ee.What() + " is disabled", Recoverable: true,
			Hint: "do what enables it first (such as filling required fields), or wait_for it to become enabled"}
	}))
	sentinel(driver.ErrElementOffscreen, onElement(func(ee *driver.ElementError) *Error {
		return &Error{Code: ElementHidden, Message: ee.What() + " is outside the viewport, where scrolling does not bring it", Recoverable: true,
			Hint: "scroll its container (scroll with a direction), or retry with force:true to click through the DOM"}
	}))
	sentinel(driver.ErrElementNotVisible, onElement(func(ee *driver.ElementError) *Error {
		return &Error{Code: ElementHidden, Message: fmt.Sprintf("%s is not rendered or has no size", ee.What()), Recoverable: true,
			Hint: "take a snapshot and pick a visible element"}
	}))
	sentinel(driver.ErrRefStale, onElement(func(ee *driver.ElementError) *Error {
		return &Error{Code: RefStale, Message: fmt.Sprintf("%s belongs to a page state that is gone", ee.Ref), Recoverable: true,
			Hint: "take a new snapshot and use its refs"}
	}))
	sentinel(driver.ErrRefNotFound, onElement(func(ee *driver.ElementError) *Error {
		return &Error{Code: RefNotFound, Message: fmt.Sprintf("%s was never issued in this tab", ee.Ref), Recoverable: true,
			Hint: "use a ref from this tab's latest snapshot"}
	}))
	sentinel(driver.ErrElementNotFound, onElement(func(ee *driver.ElementError) *Error {
		return &Error{Code: ElementNotFound, Message: fmt.Sprintf("no element matches %s", ee.What()), Recoverable: true,
			Hint: "check the selector, or take a snapshot and use a ref"}
	}))
	typed(func(_ error, pe *policy.PathError) *Error {
		return &Error{Code: UnsafePath, Message: pe.Error(), Hint: cmp.Or(pe.Hint, "give a path relative to the artifact dir, without ..")}
	})
	typed(func(_ error, ioe *policy.IOError) *Error {
		return &Error{Code: IOError, Message: ioe.Error(), Hint: ioHint(ioe)}
	})
	typed(func(_ error, nt *driver.NotTypeableError) *Error {
		return &Error{Code: ElementNotTypeable, Message: nt.What() + " " + nt.Reason, Recoverable: true, Hint: notTypeableHint(nt)}
	})
	typed(func(_ error, oe *driver.OptionError) *Error {
		return &Error{Code: InvalidArgs, Message: fmt.Sprintf("no option %q in the select; options: %s", oe.Want, oe.List()), Recoverable: true,
			Hint: "give an option's value or label as listed"}
	})
	typed(func(_ error, ke *input.KeyError) *Error {
		return &Error{Code: KeyNotSupported, Message: fmt.Sprintf("key %q is not supported", ke.Key), Recoverable: true, Hint: keyHint}
	})
	typed(func(_ error, doe *driver.DialogOpenError) *Error {
		return &Error{Code: DialogOpen, Message: dialogMessage(doe.Dialog), Recoverable: true,
			Hint: "answer it with handle_dialog (action accept or dismiss)"}
	})
	sentinel(driver.ErrNoDialog, func(error, error) *Error {
		return &Error{Code: NoDialog, Message: "no JavaScript dialog waits for an answer in this tab",
			Hint: "alerts and beforeunload dialogs are answered automatically; a result's changes.dialog says so"}
	})
	typed(func(_ error, st *stepTimeout) *Error {
		hint := retryHint
		if st.Tab {
			hint = tabRetryHint
		}
		return &Error{Code: Timeout, Message: st.message(), Recoverable: true, Hint: hint}
	})
	typed(func(_ error, qf *driver.QueueFullError) *Error {
		return &Error{Code: BusyQueueFull, Message: fmt.Sprintf("%d calls already wait for this tab", qf.Limit), Recoverable: true,
			Hint: "wait for the tab's calls to finish"}
	})
	typed(func(_ error, wte *driver.WaitTimeoutError) *Error {
		return &Error{Code: Timeout, Message: waitTimeoutMessage(wte), Recoverable: true,
			Hint: "raise timeout, or take a snapshot to see the page"}
	})
	typed(func(_ error, eve *driver.EvalError) *Error {
		return &Error{Code: EvalError, Message: eve.Message, Hint: "fix the function; it runs in the page, such as () => document.title"}
	})
	sentinel(driver.ErrInvalidArgument, func(err, _ error) *Error {
		return &Error{Code: InvalidArgs, Message: err.Error(), Hint: "see the tool's input schema"}
	})
	typed(func(err error, ub *policy.URLError) *Error {
		switch {
		case errors.Is(err, policy.ErrInvalidURL):
			return &Error{Code: InvalidURL, Message: ub.Error(), Hint: ub.Hint}
		case errors.Is(err, policy.ErrHostUnresolved):
			return &Error{Code: HostUnresolved, Message: ub.Error(), Recoverable: true, Hint: ub.Hint}
		}
		return &Error{Code: URLBlocked, Message: ub.Error(), Hint: ub.Hint}
	})
	sentinel(driver.ErrNoDisplay, func(error, error) *Error {
		return &Error{Code: NoDisplay, Message: "--headed needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set",
			Hint: "run headless (drop --headed), or give it a display: set DISPLAY, or run under xvfb-run -a"}
	})
	typed(func(_ error, pu *driver.ProfileInUseError) *Error {
		msg := "the user-data-dir " + pu.Dir + " is in use by another browser"
		hint := "close that browser, or give another --user-data-dir"
		switch {
		case pu.Host != "":
			msg = fmt.Sprintf("the user-data-dir %s is in use by process %d on host %s", pu.Dir, pu.PID, pu.Host)
		case pu.PID > 0:
			msg = fmt.Sprintf("the user-data-dir %s is in use by another browser, pid %d", pu.Dir, pu.PID)
			hint = fmt.Sprintf("close that browser (pid %d, or the cdpkit that started it), or give another --user-data-dir", pu.PID)
		}
		return &Error{Code: ProfileInUse, Message: msg, Recoverable: true, Hint: hint}
	})
	typed(func(_ error, be *driver.BusyError) *Error {
		if be.Status == 0 {
			msg := fmt.Sprintf("the Grid at %s had no browser free after cdpkit waited %s", be.Endpoint, be.Waited.Round(100*time.Millisecond))
			if be.Slots > 0 {
				msg += fmt.Sprintf(" (%d of its %d slots busy)", be.InUse, be.Slots)
			}
			return &Error{Code: BrowserBusy, Message: msg, Recoverable: true,
				Hint: "the Grid is at capacity; the request was withdrawn, and a session the Grid creates for it later is deleted. Retry when a slot frees, wait longer with the call's timeout_ms or --webdriver-wait, or give the Grid more slots (--max-sessions, --override-max-sessions)"}
		}
		hint := "the remote browser service is at capacity; retry later, or give the call a longer timeout_ms so cdpkit waits and retries"
		if be.RetryAfter > 0 {
			hint = fmt.Sprintf("the remote browser service is at capacity and asks to retry after %s (Retry-After); retry then, or give the call a longer timeout_ms so cdpkit waits for it", be.RetryAfter)
		}
		return &Error{Code: BrowserBusy, Message: fmt.Sprintf("the browser service answered %d: no browser free", be.Status), Recoverable: true, Hint: hint}
	})
	typed(func(_ error, nb *driver.NoBrowserError) *Error {
		return &Error{Code: NoBrowser, Message: nb.Reason, Hint: cmp.Or(nb.Hint, "run `cdpkit doctor` to see what is wrong")}
	})
	typed(func(_ error, tnf *driver.TargetNotFoundError) *Error {
		return &Error{Code: TargetNotFound, Message: fmt.Sprintf("no tab matches %q (%d open)", tnf.Selector, tnf.Open),
			Recoverable: true, Hint: "call list_pages to see the open tabs, or new_page to open one"}
	})
	sentinel(driver.ErrInvalidSelector, func(err, _ error) *Error {
		return &Error{Code: InvalidArgs, Message: err.Error(), Hint: "target is active, a pageId (N or pageId:N), index:N, url:SUBSTR, title:SUBSTR or a tab id"}
	})
	typed(func(_ error, he *driver.HistoryEndError) *Error {
		if he.Forward {
			return &Error{Code: NavigationFailed, Message: "the tab is at the end of its history: there is no page to go forward to", Hint: "navigate with a url"}
		}
		return &Error{Code: NavigationFailed, Message: "the tab is at the start of its history: there is no page to go back to", Hint: "navigate with a url"}
	})
	typed(func(_ error, ne *driver.NavigationError) *Error {
		return &Error{Code: NavigationFailed, Message: fmt.Sprintf("could not load %s: %s", ne.URL, ne.Text), Recoverable: true,
			Hint: "check the URL and that the server is up"}
	})
	sentinel(driver.ErrDialogLoop, func(error, error) *Error {
		return &Error{Code: TargetCrashed, Message: "the page opens JavaScript dialogs in a loop, so cdpkit stopped its renderer", Recoverable: true,
			Hint: "navigate_page to another url recovers the tab; this page loops again when loaded"}
	})
	sentinel(driver.ErrTargetCrashed, func(error, error) *Error {
		return &Error{Code: TargetCrashed, Message: "the tab's renderer crashed", Recoverable: true,
			Hint: "navigate_page (a url, or type reload) recovers the tab"}
	})
	sentinel(driver.ErrBrowserCrashed, func(err, _ error) *Error {
		if errors.Is(err, driver.ErrTargetCrashed) {
			return nil
		}
		return &Error{Code: BrowserCrashed, Message: "the browser crashed during the call", Recoverable: true,
			Hint: "the next call relaunches it"}
	})
	sentinel(driver.ErrDisconnected, func(err, _ error) *Error {
		if deeperCause(err, driver.ErrDisconnected) {
			return nil
		}
		return &Error{Code: BrowserCrashed, Message: "the browser went away during the call", Recoverable: true,
			Hint: "retry: the next call starts or reconnects the browser"}
	})
	sentinel(driver.ErrSessionClosed, func(err, _ error) *Error {
		if deeperCause(err, driver.ErrSessionClosed) {
			return nil
		}
		return &Error{Code: TargetClosed, Message: "the tab closed during the call", Recoverable: true, Hint: "call list_pages"}
	})
	timeout := func(err, _ error) *Error {
		if deeperCause(err, nil) {
			return nil
		}
		return &Error{Code: Timeout, Message: err.Error(), Recoverable: true, Hint: retryHint}
	}
	sentinel(driver.ErrTimeout, timeout)
	sentinel(context.DeadlineExceeded, timeout)
	sentinel(context.Canceled, func(err, _ error) *Error {
		if deeperCause(err, nil) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrTimeout) {
			return nil
		}
		return &Error{Code: Cancelled, Message: "the call was cancelled", Recoverable: true}
	})
	sentinel(driver.ErrScopeClosed, func(error, error) *Error {
		return &Error{Code: SessionClosed, Message: "this MCP session ended and its tabs were closed", Hint: "start a new session"}
	})
	sentinel(driver.ErrClosed, func(error, error) *Error {
		return &Error{Code: SessionClosed, Message: "the server is shutting down"}
	})
	typed(func(_ error, tl *driver.TabLimitError) *Error {
		return &Error{Code: LimitReached, Message: fmt.Sprintf("this session has %d tabs open, the most --max-tabs-per-session allows", tl.Max),
			Recoverable: true, Hint: "close a tab with close_page (list_pages shows them), or raise cdpkit serve's --max-tabs-per-session"}
	})
}

// refusalHints are ELEMENT_NOT_TYPEABLE's hints: what to do instead.
var refusalHints = map[driver.Refusal]string{
	driver.RefusedDisabled:     "wait until the page enables it (wait_for), or do what enables it first",
	driver.RefusedReadOnly:     "the page does not let it be edited; pick another field",
	driver.RefusedFileInput:    "use upload_file",
	driver.RefusedNotField:     "fill takes inputs, textareas, selects, checkboxes, radios and contenteditable elements; take a snapshot and pick one",
	driver.RefusedRadioUncheck: "check another radio button of its group",
	driver.RefusedUndone:       "take a snapshot to see what the page expects",
	driver.RefusedNotFileInput: `upload_file takes an <input type="file">; take a snapshot and pick one`,
	driver.RefusedUnfocusable:  "pick an input or another focusable element, or omit uid to type into whatever has focus",
	driver.RefusedNotSelect:    "use fill for text fields, or take a snapshot and pick a combobox or listbox",
}

// notTypeableHint is ELEMENT_NOT_TYPEABLE's hint.
func notTypeableHint(nt *driver.NotTypeableError) string { return refusalHints[nt.Why] }

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
