package driver

import (
	"errors"
)

// Crash errors.
var (
	// ErrTargetCrashed means the tab's renderer crashed. Navigating the tab
	// (or reloading it) starts a new renderer and recovers it.
	ErrTargetCrashed = errors.New("browser: the tab crashed")

	// ErrBrowserCrashed means the launched browser's process exited on its
	// own. The next [Manager.Driver] call starts a new one.
	ErrBrowserCrashed = errors.New("browser: the browser crashed")
)

// CrashedError says how a launched browser went away.
type CrashedError struct {
	Reason string // such as "signal: killed"
}

func (e *CrashedError) Error() string { return "browser: the browser crashed: " + e.Reason }

func (e *CrashedError) Unwrap() error { return ErrBrowserCrashed }
