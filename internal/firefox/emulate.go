package firefox

import (
	"context"
	"fmt"
	"maps"
	"sort"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Emulation over BiDi: the viewport (browsingContext.setViewport), the
// user agent (emulation.setUserAgentOverride), the position
// (emulation.setGeolocationOverride), going offline
// (emulation.setNetworkConditions) and extra request headers
// (network.setExtraHeaders), each for the tab's context and lasting
// across its navigations. Firefox ESR has no BiDi command for the colour
// scheme, reduced motion, CPU throttling or network throttling: those are
// refused as unsupported, before anything is applied.

// SetViewport implements driver.TabDriver: the tab's viewport, or with
// nil the launched browser's default, and what the page then measures.
// Mobile layout and touch have no BiDi command and are refused.
func (t *Tab) SetViewport(ctx context.Context, v *driver.Viewport) (driver.ViewportMetrics, error) {
	if v != nil && (v.Mobile || v.Touch) {
		return driver.ViewportMetrics{}, unsupported("mobile (mobile layout and touch emulation)")
	}
	if v != nil && (v.Width < 1 || v.Width > 10000 || v.Height < 1 || v.Height > 10000 || v.DeviceScaleFactor < 0 || v.DeviceScaleFactor > 10) {
		return driver.ViewportMetrics{}, fmt.Errorf("%w: viewport %d×%d at %v: each side is 1 to 10000, the scale 1 to 10", driver.ErrInvalidArgument, v.Width, v.Height, v.DeviceScaleFactor)
	}
	params := map[string]any{"context": t.id}
	if v == nil {
		d := driver.DefaultViewport
		if t.b.proc == nil {
			params["viewport"] = nil
		} else {
			params["viewport"] = map[string]int{"width": d.Width, "height": d.Height}
		}
		params["devicePixelRatio"] = nil
	} else {
		cp := *v
		if cp.DeviceScaleFactor == 0 {
			cp.DeviceScaleFactor = 1
		}
		v = &cp
		params["viewport"] = map[string]int{"width": v.Width, "height": v.Height}
		params["devicePixelRatio"] = v.DeviceScaleFactor
	}
	if err := t.b.conn.Call(ctx, "browsingContext.setViewport", params, nil); err != nil {
		return driver.ViewportMetrics{}, fmt.Errorf("firefox: setting the viewport: %w", t.wrap(err))
	}
	t.mu.Lock()
	t.emu.Viewport = v
	t.mu.Unlock()
	var m driver.ViewportMetrics
	if err := t.callJSON(ctx, sharedScript("measure_viewport"), nil, &m); err != nil {
		return driver.ViewportMetrics{}, fmt.Errorf("firefox: measuring the viewport: %w", t.wrap(err))
	}
	return m, nil
}

// Emulate implements driver.TabDriver for what Firefox's BiDi carries;
// an option it does not is an *driver.UnsupportedError naming it, and
// then nothing is changed.
func (t *Tab) Emulate(ctx context.Context, c driver.EmulationChange) (driver.Emulation, error) {
	if err := c.Validate(); err != nil {
		return driver.Emulation{}, err
	}
	switch {
	case c.ColorScheme != nil && *c.ColorScheme != "auto":
		return driver.Emulation{}, unsupported("colorScheme")
	case c.ReducedMotion != nil && *c.ReducedMotion != "auto":
		return driver.Emulation{}, unsupported("reducedMotion")
	case c.CPUThrottling != nil && *c.CPUThrottling != 1:
		return driver.Emulation{}, unsupported("cpuThrottling")
	case c.NetworkCustom != nil:
		return driver.Emulation{}, unsupported("customNetwork (network throttling)")
	}
	network := ""
	if c.Network != nil {
		network = driver.NetworkPreset(*c.Network)
		if network != "offline" && network != "none" {
			return driver.Emulation{}, unsupported("network " + *c.Network + " (throttling; offline and none are supported)")
		}
	}
	contexts := []string{t.id}
	call := func(method string, params map[string]any) error {
		params["contexts"] = contexts
		if err := t.b.conn.Call(ctx, method, params, nil); err != nil {
			return fmt.Errorf("firefox: %s: %w", method, t.wrap(err))
		}
		return nil
	}
	t.mu.Lock()
	e := t.emu
	t.mu.Unlock()
	// What was applied is kept, even when a later command fails.
	defer func() {
		t.mu.Lock()
		t.emu = e
		t.mu.Unlock()
	}()
	if c.UserAgent != nil {
		var ua any
		if *c.UserAgent != "" {
			ua = *c.UserAgent
		}
		if err := call("emulation.setUserAgentOverride", map[string]any{"userAgent": ua}); err != nil {
			return driver.Emulation{}, err
		}
		e.UserAgent = *c.UserAgent
	}
	if network != "" {
		var nc any
		if network == "offline" {
			nc = map[string]any{"type": "offline"}
		}
		if err := call("emulation.setNetworkConditions", map[string]any{"networkConditions": nc}); err != nil {
			return driver.Emulation{}, err
		}
		e.Network = ""
		if network == "offline" {
			e.Network = network
		}
	}
	if g := c.Geolocation; g != nil || c.ClearGeolocation {
		var coords any
		if g != nil {
			coords = map[string]any{"latitude": g.Latitude, "longitude": g.Longitude, "accuracy": g.Accuracy}
		}
		if err := call("emulation.setGeolocationOverride", map[string]any{"coordinates": coords}); err != nil {
			return driver.Emulation{}, err
		}
		e.Geolocation = nil
		if g != nil {
			cp := *g
			e.Geolocation = &cp
		}
	}
	if c.ExtraHeaders != nil {
		names := make([]string, 0, len(c.ExtraHeaders))
		for k := range c.ExtraHeaders {
			names = append(names, k)
		}
		sort.Strings(names)
		headers := []any{}
		for _, k := range names {
			headers = append(headers, map[string]any{"name": k, "value": map[string]any{"type": "string", "value": c.ExtraHeaders[k]}})
		}
		if err := call("network.setExtraHeaders", map[string]any{"headers": headers}); err != nil {
			return driver.Emulation{}, err
		}
		e.ExtraHeaders = nil
		if len(c.ExtraHeaders) > 0 {
			e.ExtraHeaders = maps.Clone(c.ExtraHeaders)
		}
	}
	out := e
	if out.Viewport != nil {
		v := *out.Viewport
		out.Viewport = &v
	}
	out.ExtraHeaders = maps.Clone(out.ExtraHeaders)
	return out, nil
}
