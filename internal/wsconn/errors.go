package wsconn

import "errors"

// The error classes of a connection to a browser, named below both
// protocols so that the backend-neutral driver can name them too (its
// ErrTimeout is this ErrTimeout) without importing a protocol package.
// Their text is CDP's, whose errors they were first.
var (
	// ErrTimeout means a command got no reply before its deadline.
	ErrTimeout = errors.New("cdp: command timed out")
	// ErrDisconnected means the transport to the browser is gone.
	ErrDisconnected = errors.New("cdp: browser disconnected")
	// ErrSessionClosed means the target behind a session went away while
	// the browser connection lives on.
	ErrSessionClosed = errors.New("cdp: session closed")
)
