package cdp

import (
	"context"
	"fmt"
	"time"

	"github.com/cdpkit/cdpkit/internal/wsconn"
)

// Sentinel errors. Callers branch on them with [errors.Is]; the typed errors
// below unwrap to them and carry the detail.
var (
	// ErrTimeout means a command got no reply before its deadline. The
	// connection stays usable; a late reply is discarded.
	ErrTimeout = wsconn.ErrTimeout

	// ErrDisconnected means the transport to the browser is gone: the browser
	// exited or crashed, or the connection was closed. Every pending and
	// later call on the Conn fails with it.
	ErrDisconnected = wsconn.ErrDisconnected

	// ErrSessionClosed means the target behind a session went away (closed,
	// crashed or detached) while the browser connection lives on.
	ErrSessionClosed = wsconn.ErrSessionClosed
)

// TimeoutError reports a command that had no reply within its budget.
type TimeoutError struct {
	Method string        // the CDP method, such as "Page.navigate"
	After  time.Duration // how long it waited
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("cdp: %s: no reply within %s", e.Method, e.After.Round(time.Millisecond))
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
		return fmt.Sprintf("cdp: %s: browser disconnected", e.Method)
	}
	return fmt.Sprintf("cdp: %s: browser disconnected: %v", e.Method, e.Cause)
}

func (e *DisconnectedError) Unwrap() []error { return []error{ErrDisconnected, e.Cause} }

// SessionClosedError reports a command sent on a session whose target went
// away.
type SessionClosedError struct {
	Method    string
	SessionID string
}

func (e *SessionClosedError) Error() string {
	return fmt.Sprintf("cdp: %s: session %s closed", e.Method, e.SessionID)
}

func (e *SessionClosedError) Unwrap() error { return ErrSessionClosed }

// ProtocolError is an error reply from the browser, such as "No node with
// given id found".
type ProtocolError struct {
	Method  string
	Code    int64
	Message string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("cdp: %s: %s (%d)", e.Method, e.Message, e.Code)
}
