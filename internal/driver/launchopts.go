package driver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	_ "time/tzdata"
)

// ErrNoDisplay means a headed browser was asked for where there is no
// display to show it on.
var ErrNoDisplay = errors.New("browser: a headed browser needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set")

// ParseViewport reads "WxH" (such as 800x600) as a viewport at scale 1.
func ParseViewport(s string) (*Viewport, error) {
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	wi, errW := strconv.Atoi(w)
	hi, errH := strconv.Atoi(h)
	if !ok || errW != nil || errH != nil {
		return nil, fmt.Errorf("%w: viewport %q: want WIDTHxHEIGHT, such as 1280x720", ErrInvalidArgument, s)
	}
	v := &Viewport{Width: wi, Height: hi, DeviceScaleFactor: 1}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	return v, nil
}
