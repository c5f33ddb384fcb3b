package driver

import (
	"context"
	"errors"
)

// ErrUnsupported means the browser backend cannot do what was asked, such
// as an argument Firefox over WebDriver BiDi has no means to honour.
var ErrUnsupported = errors.New("browser: not supported by this browser")

// UnsupportedError names what the backend cannot do.
type UnsupportedError struct {
	Backend string // "firefox"
	What    string // the operation or argument, such as "fullPage"
}

func (e *UnsupportedError) Error() string {
	return "browser: " + e.Backend + " cannot do " + e.What
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// Backend is a browser engine a Manager drives: Chromium over CDP
// (browser.Manager.Backend) or Firefox over WebDriver BiDi
// (firefox.NewBackend). It may play the roles in roles.go besides.
// Implementations are safe for concurrent use.
type Backend interface {
	// Name is the backend's name, such as "firefox".
	Name() string
	// Driver returns the running browser, starting one (or a new one in
	// place of one that died) if needed. ctx bounds the wait and start.
	Driver(ctx context.Context) (Driver, error)
	// Current returns the running browser without starting one, or nil.
	Current() Driver
	// Stop stops the browser, if any, for being idle (ManagerOptions.IdleTimeout);
	// the next Driver call starts one again.
	Stop() error
	// Close stops the browser, if any, and removes what it left on disk;
	// later Driver calls fail with ErrClosed.
	Close() error
}
