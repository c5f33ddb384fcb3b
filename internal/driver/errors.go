package driver

import (
	"errors"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/wsconn"
)

// Errors of the connection to the browser, named here so that callers
// branch on them without importing the protocol layer; errors.Is matches
// them in any error a method returns.
var (
	// ErrTimeout means the browser did not answer a command in time.
	ErrTimeout = wsconn.ErrTimeout
	// ErrDisconnected means the connection to the browser is gone.
	ErrDisconnected = wsconn.ErrDisconnected
	// ErrSessionClosed means the tab went away during the call.
	ErrSessionClosed = wsconn.ErrSessionClosed
)

// Sentinel errors. Front-ends map them to agent-facing codes.
var (
	// ErrNoBrowser means no browser could be found, launched or reached.
	ErrNoBrowser = errors.New("browser: no browser")

	// ErrTargetNotFound means a tab selector matched no open tab.
	ErrTargetNotFound = errors.New("browser: no tab matches the selector")

	// ErrInvalidSelector means a tab selector is malformed, such as "index:x".
	ErrInvalidSelector = errors.New("browser: invalid tab selector")

	// ErrNavigationFailed means the browser could not load a URL.
	ErrNavigationFailed = errors.New("browser: navigation failed")

	// ErrClosed means the Browser or Manager was closed.
	ErrClosed = errors.New("browser: closed")
)

// NoBrowserError says why no browser is available. Hint, when set, names
// the setting that fixes it; front-ends say what to run otherwise.
type NoBrowserError struct {
	Reason string
	Hint   string
}

func (e *NoBrowserError) Error() string { return "browser: " + e.Reason }

func (e *NoBrowserError) Unwrap() error { return ErrNoBrowser }

// TargetNotFoundError names the selector that matched nothing.
type TargetNotFoundError struct {
	Selector string
	Open     int // how many tabs were open
}

func (e *TargetNotFoundError) Error() string {
	return fmt.Sprintf("browser: no tab matches %q (%d open)", e.Selector, e.Open)
}

func (e *TargetNotFoundError) Unwrap() error { return ErrTargetNotFound }

// NavigationError carries Chrome's error text, such as
// "net::ERR_CONNECTION_REFUSED".
type NavigationError struct {
	URL  string
	Text string
}

func (e *NavigationError) Error() string {
	return fmt.Sprintf("browser: navigating to %s: %s", e.URL, e.Text)
}

func (e *NavigationError) Unwrap() error { return ErrNavigationFailed }

// Element errors. Refs are the short "e12" handles a snapshot prints.
var (
	// ErrRefStale means a ref names a node of a document that has since
	// changed (navigation, reload) or a node that was removed.
	ErrRefStale = errors.New("browser: element ref is stale")
	// ErrRefNotFound means a ref was never issued in this tab.
	ErrRefNotFound = errors.New("browser: unknown element ref")
	// ErrElementNotFound means a CSS selector matched nothing.
	ErrElementNotFound = errors.New("browser: no element matches the selector")
	// ErrInvalidArgument means an argument is malformed, such as a CSS
	// selector that does not parse.
	ErrInvalidArgument = errors.New("browser: invalid argument")
)

// ElementError names the ref or selector that failed.
type ElementError struct {
	Ref      string // "e12", or "" for a selector
	Selector string
	Err      error // one of the sentinels above
}

func (e *ElementError) Error() string {
	if e.Ref != "" {
		return fmt.Sprintf("%v: %s", e.Err, e.Ref)
	}
	return fmt.Sprintf("%v: %q", e.Err, e.Selector)
}

func (e *ElementError) Unwrap() error { return e.Err }

// What names the element for a message: its ref, or its quoted selector.
func (e *ElementError) What() string {
	if e.Ref != "" {
		return e.Ref
	}
	return fmt.Sprintf("%q", e.Selector)
}
