package browser

import (
	"context"
	"fmt"
	"maps"
	"sync"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// emulator holds a tab's emulation, so that it can be reported and applied
// again to a new session.
type emulator struct {
	mu     sync.Mutex // serializes changes; guards state and seeded
	state  driver.Emulation
	seeded bool // the launch options' defaults went into state (launchopts.go)

	view viewCache // the viewport as screenshots saw it (screenshot_view.go); own lock
}

// Emulation returns what the tab emulates now.
func (t *Tab) Emulation() driver.Emulation {
	t.emu.mu.Lock()
	defer t.emu.mu.Unlock()
	return t.emu.state.Clone()
}

// SetViewport overrides the tab's viewport, or with nil removes the
// override (back to the launch options' viewport, if they set one), and
// returns what the page then measures. The override lasts across
// navigations of the tab.
func (t *Tab) SetViewport(ctx context.Context, v *driver.Viewport) (driver.ViewportMetrics, error) {
	if v == nil {
		v = t.b.defaults.Viewport
	}
	if v != nil {
		if err := v.Validate(); err != nil {
			return driver.ViewportMetrics{}, err
		}
		cp := *v
		v = &cp
		if v.DeviceScaleFactor == 0 {
			v.DeviceScaleFactor = 1
		}
	}
	s, err := t.session(ctx)
	if err != nil {
		return driver.ViewportMetrics{}, err
	}
	t.emu.mu.Lock()
	t.emu.view.invalidate()
	err = applyViewport(ctx, s, v)
	if err == nil {
		t.emu.state.Viewport = v
	}
	t.emu.view.invalidate() // and after: a capture may have measured meanwhile
	t.emu.mu.Unlock()
	if err != nil {
		return driver.ViewportMetrics{}, err
	}
	return measureViewport(ctx, s)
}

// MeasureViewport returns what the page measures of its viewport.
func (t *Tab) MeasureViewport(ctx context.Context) (driver.ViewportMetrics, error) {
	s, err := t.session(ctx)
	if err != nil {
		return driver.ViewportMetrics{}, err
	}
	return measureViewport(ctx, s)
}

// measureViewportJS reads what the page sees of its viewport.
var measureViewportJS = loadScript("measure_viewport")

func measureViewport(ctx context.Context, s cdpapi.Session) (driver.ViewportMetrics, error) {
	var m driver.ViewportMetrics
	if err := callJS(ctx, s, jsCall{}, measureViewportJS, &m); err != nil {
		return driver.ViewportMetrics{}, fmt.Errorf("browser: measuring the viewport: %w", err)
	}
	return m, nil
}

// Emulate changes what the tab emulates and returns all that is now in
// effect. It stops at the first command that fails; what it had applied
// by then stays applied and is reported by [Tab.Emulation].
//
// The geolocation permission is browser-wide: setting a position grants
// it to every origin (the position is fake, so nothing real leaks), and
// clearing the position sets it back to prompt.
func (t *Tab) Emulate(ctx context.Context, c driver.EmulationChange) (driver.Emulation, error) {
	if err := c.Validate(); err != nil {
		return driver.Emulation{}, err
	}
	s, err := t.session(ctx)
	if err != nil {
		return driver.Emulation{}, err
	}
	t.emu.mu.Lock()
	defer t.emu.mu.Unlock()
	t.emu.view.invalidate()
	st := &t.emu.state
	if c.UserAgent != nil {
		if err := applyUserAgent(ctx, s, *c.UserAgent); err != nil {
			return st.Clone(), err
		}
		st.UserAgent = *c.UserAgent
	}
	if c.ColorScheme != nil || c.ReducedMotion != nil {
		scheme, motion := st.ColorScheme, st.ReducedMotion
		if c.ColorScheme != nil {
			scheme = auto(*c.ColorScheme)
		}
		if c.ReducedMotion != nil {
			motion = auto(*c.ReducedMotion)
		}
		if err := applyMedia(ctx, s, scheme, motion); err != nil {
			return st.Clone(), err
		}
		st.ColorScheme, st.ReducedMotion = scheme, motion
	}
	if c.CPUThrottling != nil {
		if err := applyCPUThrottling(ctx, s, *c.CPUThrottling); err != nil {
			return st.Clone(), err
		}
		st.CPUThrottling = *c.CPUThrottling
		if st.CPUThrottling == 1 {
			st.CPUThrottling = 0
		}
	}
	if c.Network != nil || c.NetworkCustom != nil {
		n, custom := networkOf(c)
		if err := applyNetwork(ctx, s, n, custom); err != nil {
			return st.Clone(), err
		}
		st.Network, st.NetworkCustom = n, custom
	}
	if c.Geolocation != nil || c.ClearGeolocation {
		if err := t.setGeolocationPermission(ctx, c.Geolocation != nil); err != nil {
			return st.Clone(), err
		}
		if err := applyGeolocation(ctx, s, c.Geolocation); err != nil {
			return st.Clone(), err
		}
		st.Geolocation = nil
		if c.Geolocation != nil {
			g := *c.Geolocation
			st.Geolocation = &g
		}
	}
	if c.ExtraHeaders != nil {
		if err := applyExtraHeaders(ctx, s, c.ExtraHeaders); err != nil {
			return st.Clone(), err
		}
		st.ExtraHeaders = nil
		if len(c.ExtraHeaders) > 0 {
			st.ExtraHeaders = maps.Clone(c.ExtraHeaders)
		}
	}
	return st.Clone(), nil
}

// restoreEmulation applies the tab's emulation to s. Chromium drops a
// session's overrides when the session detaches, so a new session of the
// tab (after a crash or a detach) starts without them; call this on it.
func (t *Tab) restoreEmulation(ctx context.Context, s cdpapi.Session) error {
	t.emu.mu.Lock()
	defer t.emu.mu.Unlock()
	t.emu.view.invalidate()
	st := t.emu.state
	if st.Viewport != nil {
		if err := applyViewport(ctx, s, st.Viewport); err != nil {
			return err
		}
	}
	if st.UserAgent != "" {
		if err := applyUserAgent(ctx, s, st.UserAgent); err != nil {
			return err
		}
	}
	if st.ColorScheme != "" || st.ReducedMotion != "" {
		if err := applyMedia(ctx, s, st.ColorScheme, st.ReducedMotion); err != nil {
			return err
		}
	}
	if st.CPUThrottling > 1 {
		if err := applyCPUThrottling(ctx, s, st.CPUThrottling); err != nil {
			return err
		}
	}
	if st.Network != "" {
		if err := applyNetwork(ctx, s, st.Network, st.NetworkCustom); err != nil {
			return err
		}
	}
	if st.Geolocation != nil {
		if err := applyGeolocation(ctx, s, st.Geolocation); err != nil {
			return err
		}
	}
	if len(st.ExtraHeaders) > 0 {
		if err := applyExtraHeaders(ctx, s, st.ExtraHeaders); err != nil {
			return err
		}
	}
	if st.Timezone != "" {
		if err := applyTimezone(ctx, s, st.Timezone); err != nil {
			return err
		}
	}
	if st.Locale != "" {
		if err := applyLocale(ctx, s, st.Locale); err != nil {
			return err
		}
	}
	return nil
}

// auto maps "auto" to "", the browser's own value.
func auto(v string) string {
	if v == "auto" {
		return ""
	}
	return v
}

func applyViewport(ctx context.Context, s cdpapi.Session, v *driver.Viewport) error {
	if v == nil {
		if _, err := cdpapi.Call(ctx, s, emulation.ClearDeviceMetricsOverride, cdpapi.Empty{}); err != nil {
			return fmt.Errorf("browser: clearing the viewport: %w", err)
		}
		if _, err := cdpapi.Call(ctx, s, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: false}); err != nil {
			return fmt.Errorf("browser: clearing touch emulation: %w", err)
		}
		return nil
	}
	if _, err := cdpapi.Call(ctx, s, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(v.Width), Height: int64(v.Height), DeviceScaleFactor: v.DeviceScaleFactor, Mobile: v.Mobile,
		ScreenWidth: int64(v.Width), ScreenHeight: int64(v.Height),
	}); err != nil {
		return fmt.Errorf("browser: setting the viewport: %w", err)
	}
	touch := emulation.SetTouchEmulationEnabledParams{Enabled: v.Touch}
	if v.Touch {
		touch.MaxTouchPoints = 5
	}
	if _, err := cdpapi.Call(ctx, s, emulation.SetTouchEmulationEnabled, touch); err != nil {
		return fmt.Errorf("browser: setting touch emulation: %w", err)
	}
	return nil
}

func applyUserAgent(ctx context.Context, s cdpapi.Session, ua string) error {
	if _, err := cdpapi.Call(ctx, s, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua}); err != nil {
		return fmt.Errorf("browser: setting the user agent: %w", err)
	}
	return nil
}

// applyMedia sets both media features at once: each call replaces the
// previous set.
func applyMedia(ctx context.Context, s cdpapi.Session, scheme, motion string) error {
	features := []*emulation.MediaFeature{}
	if scheme != "" {
		features = append(features, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: scheme})
	}
	if motion != "" {
		features = append(features, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: motion})
	}
	if _, err := cdpapi.Call(ctx, s, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: features}); err != nil {
		return fmt.Errorf("browser: emulating media features: %w", err)
	}
	return nil
}

func applyCPUThrottling(ctx context.Context, s cdpapi.Session, rate float64) error {
	if _, err := cdpapi.Call(ctx, s, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: rate}); err != nil {
		return fmt.Errorf("browser: throttling the CPU: %w", err)
	}
	return nil
}

func applyGeolocation(ctx context.Context, s cdpapi.Session, g *driver.Geolocation) error {
	if g == nil {
		if _, err := cdpapi.Call(ctx, s, emulation.ClearGeolocationOverride, cdpapi.Empty{}); err != nil {
			return fmt.Errorf("browser: clearing the geolocation: %w", err)
		}
		return nil
	}
	if _, err := cdpapi.Call(ctx, s, emulation.SetGeolocationOverride, emulation.SetGeolocationOverrideParams{
		Latitude: &g.Latitude, Longitude: &g.Longitude, Accuracy: &g.Accuracy,
	}); err != nil {
		return fmt.Errorf("browser: setting the geolocation: %w", err)
	}
	return nil
}

// setGeolocationPermission grants geolocation to every origin, or sets it
// back to prompt.
func (t *Tab) setGeolocationPermission(ctx context.Context, grant bool) error {
	setting := cdpbrowser.PermissionSettingPrompt
	if grant {
		setting = cdpbrowser.PermissionSettingGranted
	}
	if _, err := cdpapi.Call(ctx, t.b.conn.Browser(), cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "geolocation"}, Setting: setting,
	}); err != nil {
		return fmt.Errorf("browser: setting the geolocation permission: %w", err)
	}
	return nil
}

func applyExtraHeaders(ctx context.Context, s cdpapi.Session, h map[string]string) error {
	headers := make(network.Headers, len(h))
	for k, v := range h {
		headers[k] = v
	}
	if _, err := cdpapi.Call(ctx, s, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: headers}); err != nil {
		return fmt.Errorf("browser: setting extra headers: %w", err)
	}
	return nil
}
