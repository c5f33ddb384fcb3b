package driver

import (
	"fmt"
	"math"
)

// ScrollOptions say where to scroll: by Direction, to an element (Ref or
// Selector), or to X and Y; exactly one of the three.
type ScrollOptions struct {
	// Direction is "up", "down", "left" or "right": the page, or when it
	// cannot scroll that way the scrollable element in the middle of the
	// viewport, moves by Pixels, or 80% of its visible size when Pixels is
	// zero.
	Direction string
	Pixels    float64
	// Ref or Selector names an element to scroll into view (see
	// [TabDriver.Element]).
	Ref      string
	Selector string
	// X and Y scroll the page to a position; a nil one keeps its axis.
	X, Y *float64
}

// Check reports options that do not name exactly one way to scroll, or a
// bad Pixels, as an error wrapping ErrInvalidArgument.
func (o *ScrollOptions) Check() error {
	modes := 0
	for _, set := range []bool{o.Direction != "", o.Ref != "" || o.Selector != "", o.X != nil || o.Y != nil} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return fmt.Errorf("%w: give one of direction, an element, or x and y", ErrInvalidArgument)
	}
	if o.Pixels < 0 || math.IsNaN(o.Pixels) || math.IsInf(o.Pixels, 0) {
		return fmt.Errorf("%w: pixels must be positive", ErrInvalidArgument)
	}
	return nil
}

// Axis is Direction as a unit step: (0, 1) for down.
func (o *ScrollOptions) Axis() (ux, uy float64, err error) {
	switch o.Direction {
	case "down":
		return 0, 1, nil
	case "up":
		return 0, -1, nil
	case "right":
		return 1, 0, nil
	case "left":
		return -1, 0, nil
	}
	return 0, 0, fmt.Errorf("%w: direction %q is not up, down, left or right", ErrInvalidArgument, o.Direction)
}

// ScrollResult is where a scroll ended.
type ScrollResult struct {
	ScrollX        float64 `json:"scrollX"`
	ScrollY        float64 `json:"scrollY"`
	PageWidth      float64 `json:"pageWidth"`
	PageHeight     float64 `json:"pageHeight"`
	ViewportWidth  float64 `json:"viewportWidth"`
	ViewportHeight float64 `json:"viewportHeight"`
	// Container names the element scrolled when it was not the page; the
	// numbers above are then its own.
	Container string `json:"container,omitempty"`
	// InViewport and FullyInViewport say, for a scroll to an element,
	// whether any of it shows, and all of it.
	InViewport      *bool `json:"inViewport,omitempty"`
	FullyInViewport *bool `json:"fullyInViewport,omitempty"`
}
