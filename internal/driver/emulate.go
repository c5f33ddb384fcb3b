package driver

import (
	"fmt"
	"maps"
	"math"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// Viewport is a device metrics override: the size of the page's viewport
// in CSS pixels, its device pixel ratio, and whether it is a mobile device
// (which honors <meta name=viewport>, uses overlay scrollbars and sizes
// text for small screens) with a touch screen.
type Viewport struct {
	Width             int     `json:"width"`
	Height            int     `json:"height"`
	DeviceScaleFactor float64 `json:"deviceScaleFactor"`
	Mobile            bool    `json:"mobile,omitempty"`
	Touch             bool    `json:"touch,omitempty"`
}

// DefaultViewport is the viewport of a launched browser's tabs when the
// launch options give none: what the window size promises.
var DefaultViewport = Viewport{Width: 1280, Height: 720, DeviceScaleFactor: 1}

// maxViewportSide bounds a viewport side, well inside what Chromium takes.
const maxViewportSide = 10000

// ViewportPreset returns the viewport a preset names: "mobile" (390×844 at
// 3x, like a recent phone), "tablet" (820×1180 at 2x) or "desktop"
// (1280×800 at 1x).
func ViewportPreset(name string) (Viewport, bool) {
	switch name {
	case "mobile":
		return Viewport{Width: 390, Height: 844, DeviceScaleFactor: 3, Mobile: true, Touch: true}, true
	case "tablet":
		return Viewport{Width: 820, Height: 1180, DeviceScaleFactor: 2, Mobile: true, Touch: true}, true
	case "desktop":
		return Viewport{Width: 1280, Height: 800, DeviceScaleFactor: 1}, true
	}
	return Viewport{}, false
}

func (v Viewport) Validate() error {
	if v.Width < 1 || v.Width > maxViewportSide || v.Height < 1 || v.Height > maxViewportSide {
		return fmt.Errorf("%w: viewport %d×%d: each side is 1 to %d", ErrInvalidArgument, v.Width, v.Height, maxViewportSide)
	}
	if v.DeviceScaleFactor < 0 || v.DeviceScaleFactor > 10 || math.IsNaN(v.DeviceScaleFactor) {
		return fmt.Errorf("%w: deviceScaleFactor %v: use 1 to 10", ErrInvalidArgument, v.DeviceScaleFactor)
	}
	return nil
}

// ViewportMetrics is what the page measures of its viewport.
type ViewportMetrics struct {
	InnerWidth       int     `json:"innerWidth"`
	InnerHeight      int     `json:"innerHeight"`
	DevicePixelRatio float64 `json:"devicePixelRatio"`
	ScrollWidth      int     `json:"scrollWidth"` // document.documentElement.scrollWidth
}

// Geolocation is an emulated position; Accuracy is in meters.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy"`
}

// Emulation is what a tab emulates. The zero value is the browser as it
// is.
type Emulation struct {
	Viewport      *Viewport          `json:"viewport,omitempty"`
	UserAgent     string             `json:"userAgent,omitempty"`
	ColorScheme   string             `json:"colorScheme,omitempty"`   // light or dark
	ReducedMotion string             `json:"reducedMotion,omitempty"` // reduce or no-preference
	CPUThrottling float64            `json:"cpuThrottling,omitempty"` // slowdown factor above 1
	Network       string             `json:"network,omitempty"`       // a NetworkPresets name, or custom
	NetworkCustom *NetworkConditions `json:"networkCustom,omitempty"` // when Network is custom
	Geolocation   *Geolocation       `json:"geolocation,omitempty"`
	ExtraHeaders  map[string]string  `json:"extraHeaders,omitempty"` // sent with every request of the tab
	Timezone      string             `json:"timezone,omitempty"`     // IANA name, from the launch options
	Locale        string             `json:"locale,omitempty"`       // from the launch options' language
}

func (e Emulation) Clone() Emulation {
	if e.Viewport != nil {
		v := *e.Viewport
		e.Viewport = &v
	}
	if e.Geolocation != nil {
		g := *e.Geolocation
		e.Geolocation = &g
	}
	if e.NetworkCustom != nil {
		n := *e.NetworkCustom
		e.NetworkCustom = &n
	}
	e.ExtraHeaders = maps.Clone(e.ExtraHeaders)
	return e
}

// EmulationChange says what to change; nil fields stay as they are.
type EmulationChange struct {
	UserAgent     *string  // "" restores the browser's
	ColorScheme   *string  // light, dark, or auto (the browser's)
	ReducedMotion *string  // reduce, no-preference, or auto
	CPUThrottling *float64 // slowdown factor 1 to 20; 1 turns throttling off
	Network       *string  // a NetworkPresets name (as NetworkPreset spells it), or none
	// NetworkCustom throttles the network as it says; it goes without
	// Network.
	NetworkCustom *NetworkConditions
	Geolocation   *Geolocation
	// ClearGeolocation removes the emulated position.
	ClearGeolocation bool
	// ExtraHeaders replaces the extra request headers; an empty non-nil
	// map removes them.
	ExtraHeaders map[string]string
}

// Validate checks c without touching a browser; its errors wrap
// [ErrInvalidArgument].
func (c *EmulationChange) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
	}
	if c.ColorScheme != nil {
		switch *c.ColorScheme {
		case "light", "dark", "auto":
		default:
			return bad("colorScheme %q: use light, dark or auto", *c.ColorScheme)
		}
	}
	if c.ReducedMotion != nil {
		switch *c.ReducedMotion {
		case "reduce", "no-preference", "auto":
		default:
			return bad("reducedMotion %q: use reduce, no-preference or auto", *c.ReducedMotion)
		}
	}
	if r := c.CPUThrottling; r != nil && !(*r >= 1 && *r <= 20) {
		return bad("cpuThrottling %v: use a slowdown factor from 1 (none) to 20", *r)
	}
	if err := validateNetwork(c); err != nil {
		return err
	}
	if g := c.Geolocation; g != nil {
		if c.ClearGeolocation {
			return bad("geolocation: set it or clear it, not both")
		}
		if !(g.Latitude >= -90 && g.Latitude <= 90) || !(g.Longitude >= -180 && g.Longitude <= 180) || !(g.Accuracy >= 0) {
			return bad("geolocation: latitude is -90 to 90, longitude -180 to 180, accuracy 0 or more")
		}
	}
	for k, v := range c.ExtraHeaders {
		if k == "" {
			return bad("extraHeaders: a header name is empty")
		}
		if err := policy.CheckRequestHeader(k, v); err != nil {
			return bad("extraHeaders: %v", err)
		}
	}
	if c.UserAgent != nil {
		if err := policy.CheckHeaderValue(*c.UserAgent); err != nil {
			return bad("userAgent: %v", err)
		}
	}
	return nil
}
