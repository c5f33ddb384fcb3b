package bidi

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Callers branch on them with [errors.Is]; the typed errors
// below unwrap to them and carry the detail.
var (
	// ErrTimeout means a command got no reply before its deadline. The
	// connection stays usable; a late reply is discarded.
	ErrTimeout = errors.New("bidi: command timed out")

	// ErrDisconnected means the transport to the browser is gone. Every
	// pending and later call on the Conn fails with it.
	ErrDisconnected = errors.New("bidi: browser disconnected")

	// ErrNoSuchFrame means the browsing context a command names is gone
	// (closed, or never was).
	ErrNoSuchFrame = errors.New("bidi: no such browsing context")

	// ErrNoSuchNode means a shared reference no longer names a node: its
	// document changed, or the node was removed.
	ErrNoSuchNode = errors.New("bidi: no such node")

	// ErrNoSuchAlert means a user prompt was to be handled but none is open.
	ErrNoSuchAlert = errors.New("bidi: no such user prompt")

	// ErrUnsupported means the browser does not implement the command or
	// an argument of it.
	ErrUnsupported = errors.New("bidi: unsupported operation")
)

// TimeoutError reports a command that had no reply within its budget.
type TimeoutError struct {
	Method string        // such as "browsingContext.navigate"
	After  time.Duration // how long it waited
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("bidi: %s: no reply within %s", e.Method, e.After.Round(time.Millisecond))
}

// Unwrap lets errors.Is match both ErrTimeout and context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() []error { return []error{ErrTimeout, context.DeadlineExceeded} }

// DisconnectedError reports a command that failed because the transport
// closed. Cause is what closed it, if known.
type DisconnectedError struct {
	Method string
	Cause  error
}

func (e *DisconnectedError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("bidi: %s: browser disconnected", e.Method)
	}
	return fmt.Sprintf("bidi: %s: browser disconnected: %v", e.Method, e.Cause)
}

func (e *DisconnectedError) Unwrap() []error { return []error{ErrDisconnected, e.Cause} }

// CommandError is an error reply from the browser. Code is the spec's
// error code, such as "no such frame" or "invalid argument".
type CommandError struct {
	Method  string
	Code    string
	Message string
}

func (e *CommandError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("bidi: %s: %s", e.Method, e.Code)
	}
	return fmt.Sprintf("bidi: %s: %s: %s", e.Method, e.Code, e.Message)
}

// Unwrap maps the codes callers branch on to their sentinels.
func (e *CommandError) Unwrap() error {
	switch e.Code {
	case "no such frame":
		return ErrNoSuchFrame
	case "no such node", "stale element reference", "detached shadow root":
		return ErrNoSuchNode
	case "no such alert":
		return ErrNoSuchAlert
	case "unsupported operation", "unknown command":
		return ErrUnsupported
	}
	return nil
}
