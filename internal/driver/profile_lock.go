package driver

import (
	"errors"
	"fmt"
)

// ErrProfileInUse means another browser holds the user-data-dir asked
// for. Chromium started on it would hand its command line to that browser
// and exit, so cdpkit refuses first.
var ErrProfileInUse = errors.New("browser: the profile is in use by another browser")

// ProfileInUseError names the profile and, where the OS lets Chromium
// record it, the holder.
type ProfileInUseError struct {
	Dir  string
	PID  int    // the holding browser's pid; 0 when unknown (Windows)
	Host string // the host that holds it, when not this one
}

func (e *ProfileInUseError) Error() string {
	switch {
	case e.Host != "":
		return fmt.Sprintf("browser: profile %s is in use by process %d on host %s", e.Dir, e.PID, e.Host)
	case e.PID > 0:
		return fmt.Sprintf("browser: profile %s is in use by another browser, pid %d", e.Dir, e.PID)
	}
	return fmt.Sprintf("browser: profile %s is in use by another browser", e.Dir)
}

func (e *ProfileInUseError) Unwrap() error { return ErrProfileInUse }
