package driver

import (
	"errors"
	"testing"
)

func TestScrollAxis(t *testing.T) {
	for dir, want := range map[string][2]float64{"up": {0, -1}, "down": {0, 1}, "left": {-1, 0}, "right": {1, 0}} {
		o := ScrollOptions{Direction: dir}
		x, y, err := o.Axis()
		if err != nil || x != want[0] || y != want[1] {
			t.Errorf("Axis(%s) = %v, %v, %v; want %v", dir, x, y, err, want)
		}
	}
	o := ScrollOptions{Direction: "Down"}
	if _, _, err := o.Axis(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Axis(Down) = %v, want ErrInvalidArgument", err)
	}
}

func TestScrollOptionsCheck(t *testing.T) {
	y := 10.0
	for _, o := range []ScrollOptions{{}, {Direction: "down", Ref: "e1"}, {Selector: "p", Y: &y}, {Direction: "up", Pixels: -1}} {
		if err := o.Check(); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Check(%+v) = %v, want ErrInvalidArgument", o, err)
		}
	}
	for _, o := range []ScrollOptions{{Direction: "down"}, {Ref: "e1"}, {Y: &y}} {
		if err := o.Check(); err != nil {
			t.Errorf("Check(%+v) = %v", o, err)
		}
	}
}
