package driver

import (
	"errors"
)

// ErrDialogLoop means a page opened JavaScript dialogs in a loop, so
// cdpkit stopped its renderer; navigating the tab recovers it.
var ErrDialogLoop = errors.New("browser: the page opens JavaScript dialogs in a loop")
