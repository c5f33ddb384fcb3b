package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

type resizeArgs struct {
	Width  int    `json:"width,omitempty" jsonschema:"viewport width in CSS px, with height"`
	Height int    `json:"height,omitempty" jsonschema:"viewport height in CSS px, with width"`
	Preset string `json:"preset,omitempty" jsonschema:"mobile (390x844, 3x, touch), tablet (820x1180, 2x, touch) or desktop (1280x800)"`
	Reset  bool   `json:"reset,omitempty" jsonschema:"remove the override"`
	// Overrides of a size's or a preset's scale and mobile mode.
	DeviceScaleFactor float64 `json:"deviceScaleFactor,omitempty" jsonschema:"device pixels per CSS px, 0.5-4 (default 1, or the preset's)"`
	Mobile            *bool   `json:"mobile,omitempty" jsonschema:"mobile layout and touch (default off, or the preset's)"`
	actionArgs

	viewport *driver.Viewport // by check; nil to reset
}

type geoArgs struct {
	Latitude  float64 `json:"latitude" jsonschema:"-90 to 90"`
	Longitude float64 `json:"longitude" jsonschema:"-180 to 180"`
	Accuracy  float64 `json:"accuracy,omitempty" jsonschema:"meters (default 10)"`
}

type customNetwork struct {
	LatencyMS    float64 `json:"latencyMs,omitempty" jsonschema:"added latency, ms"`
	DownloadKbps float64 `json:"downloadKbps,omitempty" jsonschema:"download throughput, kbit/s (0: unlimited)"`
	UploadKbps   float64 `json:"uploadKbps,omitempty" jsonschema:"upload throughput, kbit/s (0: unlimited)"`
}

type emulateArgs struct {
	UserAgent     *string           `json:"userAgent,omitempty" jsonschema:"user agent string; empty restores the browser's"`
	ColorScheme   string            `json:"colorScheme,omitempty" jsonschema:"light, dark or auto"`
	ReducedMotion string            `json:"reducedMotion,omitempty" jsonschema:"reduce, no-preference or auto"`
	CPUThrottling float64           `json:"cpuThrottling,omitempty" jsonschema:"CPU slowdown factor 1-20; 1 turns it off"`
	CPURate       float64           `json:"cpuThrottlingRate,omitempty" jsonschema:"same as cpuThrottling (chrome-devtools-mcp's name)"`
	Network       string            `json:"network,omitempty" jsonschema:"offline, slow3g (2 s latency, 400 kbit/s), fast3g or slow4g (563 ms, 1.4 Mbit/s), fast4g (165 ms, 8.1 Mbit/s) or none"`
	CustomNetwork *customNetwork    `json:"customNetwork,omitempty" jsonschema:"custom throttling, instead of network"`
	Geolocation   *geoArgs          `json:"geolocation,omitempty" jsonschema:"position to report, granting the permission; null clears it"`
	ExtraHeaders  map[string]string `json:"extraHeaders,omitempty" jsonschema:"headers added to every request of the tab, replacing earlier ones; {} removes them"`
	Target        string            `json:"target,omitempty"`

	geoGiven bool                   // geolocation was in the arguments, possibly as null
	change   driver.EmulationChange // by check
}

// UnmarshalJSON decodes the arguments strictly and notes whether
// geolocation was given: null clears it, absent leaves it.
func (a *emulateArgs) UnmarshalJSON(b []byte) error {
	type plain emulateArgs
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(a)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	_, a.geoGiven = keys["geolocation"]
	return nil
}

func emulateTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "resize_page",
			Description: "Set the tab's viewport (width and height, or a preset) or reset it; it lasts across navigations. " +
				"Returns what was asked, what the page measures and a warning when they differ.",
			Idempotent: true,
			Dialog:     DialogPasses, Changes: ReportChanges,
		}, resizePage),
		defineOn(Tool{
			Name: "emulate",
			Description: "Emulate a user agent, color scheme, reduced motion, CPU or network throttling, a geolocation " +
				"or extra request headers in a tab; each is optional and lasts until changed. Returns all that is in effect.",
			Idempotent: true,
		}, emulate),
	}
}

type resizeResult struct {
	Asked    *driver.Viewport       `json:"asked,omitempty"` // nil after a reset
	Measured driver.ViewportMetrics `json:"measured"`
	Warning  string                 `json:"warning,omitempty"`
	changedIfAny
}

// Bounds of resize_page: a viewport side under minViewportSide leaves no
// page to see, and a scale outside minScale-maxScale is no screen's.
const (
	minViewportSide = 200
	minScale        = 0.5
	maxScale        = 4.0
)

func (in *resizeArgs) check(context.Context, *Env) error {
	custom := in.Width != 0 || in.Height != 0
	ways := 0
	for _, given := range []bool{custom, in.Preset != "", in.Reset} {
		if given {
			ways++
		}
	}
	if ways != 1 {
		return errorf(InvalidArgs, false, "give width and height, or preset, or reset:true", "give exactly one of width/height, preset and reset")
	}
	switch {
	case in.Reset && (in.DeviceScaleFactor != 0 || in.Mobile != nil):
		return errorf(InvalidArgs, false, "give width and height or a preset with them", "deviceScaleFactor and mobile do not go with reset")
	case in.DeviceScaleFactor != 0 && (in.DeviceScaleFactor < minScale || in.DeviceScaleFactor > maxScale):
		return errorf(InvalidArgs, false, fmt.Sprintf("use %g-%g", minScale, maxScale), "deviceScaleFactor %g is out of range", in.DeviceScaleFactor)
	}
	switch {
	case custom:
		if in.Width <= 0 || in.Height <= 0 {
			return errorf(InvalidArgs, false, "give both, in CSS px", "width and height go together and are positive: got width %d, height %d", in.Width, in.Height)
		}
		if in.Width < minViewportSide || in.Height < minViewportSide {
			return errorf(InvalidArgs, false, fmt.Sprintf("give at least %dx%d; for a small device use preset mobile", minViewportSide, minViewportSide),
				"%dx%d is under the %dx%d floor of a viewport", in.Width, in.Height, minViewportSide, minViewportSide)
		}
		in.viewport = &driver.Viewport{Width: in.Width, Height: in.Height, DeviceScaleFactor: 1}
	case in.Preset != "":
		p, ok := driver.ViewportPreset(in.Preset)
		if !ok {
			return errorf(InvalidArgs, false, "preset is mobile, tablet or desktop", "unknown preset %q", in.Preset)
		}
		in.viewport = &p
	}
	if v := in.viewport; v != nil {
		if in.DeviceScaleFactor != 0 {
			v.DeviceScaleFactor = in.DeviceScaleFactor
		}
		if in.Mobile != nil {
			v.Mobile, v.Touch = *in.Mobile, *in.Mobile
		}
	}
	return nil
}

func resizePage(ctx context.Context, env *Env, d *door, in resizeArgs) (*Result, error) {
	em, err := role[driver.Emulator](env, d.tab, "resize_page")
	if err != nil {
		return nil, err
	}
	v := in.viewport
	m, err := em.SetViewport(ctx, v)
	if err != nil {
		return nil, err
	}
	return &Result{Data: &resizeResult{Asked: v, Measured: m, Warning: viewportWarning(v, m)}}, nil
}

// viewportWarning says how what the page measures differs from what was
// asked, and why when that is known; "" when it does not.
func viewportWarning(asked *driver.Viewport, m driver.ViewportMetrics) string {
	var w []string
	if asked != nil {
		if m.InnerWidth != asked.Width {
			s := fmt.Sprintf("the page lays out %d px wide, not %d", m.InnerWidth, asked.Width)
			if asked.Mobile && m.InnerWidth > asked.Width {
				s += ": it lacks <meta name=viewport content=\"width=device-width\">, so mobile browsers lay it out wide and zoom out"
			}
			w = append(w, s)
		}
		if m.InnerHeight != asked.Height {
			w = append(w, fmt.Sprintf("innerHeight is %d, not %d", m.InnerHeight, asked.Height))
		}
		if m.DevicePixelRatio != asked.DeviceScaleFactor {
			w = append(w, fmt.Sprintf("devicePixelRatio is %g, not %g (the page may be zoomed)", m.DevicePixelRatio, asked.DeviceScaleFactor))
		}
	}
	if m.ScrollWidth > m.InnerWidth && m.InnerWidth > 0 {
		w = append(w, fmt.Sprintf("the content is %d px wide, more than the %d px viewport: the page scrolls sideways", m.ScrollWidth, m.InnerWidth))
	}
	return strings.Join(w, "; ")
}

// defaultAccuracy is the geolocation accuracy, in meters, when none is given.
const defaultAccuracy = 10

func (in *emulateArgs) check(context.Context, *Env) error {
	c := driver.EmulationChange{UserAgent: in.UserAgent, ExtraHeaders: in.ExtraHeaders}
	if in.ColorScheme != "" {
		c.ColorScheme = &in.ColorScheme
	}
	if in.ReducedMotion != "" {
		c.ReducedMotion = &in.ReducedMotion
	}
	if in.CPURate != 0 {
		if in.CPUThrottling != 0 && in.CPUThrottling != in.CPURate {
			return errorf(InvalidArgs, false, "give one of them", "cpuThrottling %v and cpuThrottlingRate %v disagree", in.CPUThrottling, in.CPURate)
		}
		in.CPUThrottling = in.CPURate
	}
	if in.CPUThrottling != 0 {
		c.CPUThrottling = &in.CPUThrottling
	}
	if in.Network != "" {
		c.Network = &in.Network
	}
	if n := in.CustomNetwork; n != nil {
		c.NetworkCustom = &driver.NetworkConditions{LatencyMS: n.LatencyMS, DownloadKbps: n.DownloadKbps, UploadKbps: n.UploadKbps}
	}
	if g := in.Geolocation; g != nil {
		acc := g.Accuracy
		if acc == 0 {
			acc = defaultAccuracy
		}
		c.Geolocation = &driver.Geolocation{Latitude: g.Latitude, Longitude: g.Longitude, Accuracy: acc}
	} else if in.geoGiven {
		c.ClearGeolocation = true
	}
	if err := c.Validate(); err != nil {
		return err
	}
	in.change = c
	return nil
}

func emulate(ctx context.Context, env *Env, d *door, in emulateArgs) (*Result, error) {
	em, err := role[driver.Emulator](env, d.tab, "emulate")
	if err != nil {
		return nil, err
	}
	e, err := em.Emulate(ctx, in.change)
	if err != nil {
		return nil, err
	}
	e.ExtraHeaders = redactHeaders(e.ExtraHeaders)
	return &Result{Data: e}, nil
}

// redactHeaders returns h with the values of credential headers replaced,
// so that echoing them does not put a secret in the transcript.
func redactHeaders(h map[string]string) map[string]string { return policy.RedactHeaders(h) }
