package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/driver"
)

func TestViewportPresets(t *testing.T) {
	// Not parallel: what it checks needs the tab to render as the visible
	// one, and parallel tests keep taking other tabs to the front.
	srv := serveNav(t)
	_, tab := newTab(t)
	page := "/emulate-viewport.html"
	mustNav(t, tab, srv.URL+page, nil)
	initial, err := tab.MeasureViewport(t.Context())
	if err != nil {
		t.Fatalf("MeasureViewport: %v", err)
	}

	tests := []struct {
		preset   string
		wantDPR  float64
		wantMenu bool // the page's narrow layout shows a Menu button
		touch    bool
	}{
		{"mobile", 3, true, true},
		{"tablet", 2, false, true},
		{"desktop", 1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			v, ok := driver.ViewportPreset(tt.preset)
			if !ok {
				t.Fatalf("no preset %q", tt.preset)
			}
			got, err := tab.SetViewport(t.Context(), &v)
			if err != nil {
				t.Fatalf("SetViewport(%s): %v", tt.preset, err)
			}
			want := driver.ViewportMetrics{InnerWidth: v.Width, InnerHeight: v.Height, DevicePixelRatio: tt.wantDPR, ScrollWidth: v.Width}
			if got != want {
				t.Errorf("SetViewport(%s) measures %+v, want %+v", tt.preset, got, want)
			}
			var menu, touch bool
			navEval(t, tab, "getComputedStyle(document.querySelector('.narrow')).display !== 'none'", &menu)
			navEval(t, tab, "navigator.maxTouchPoints > 0 && matchMedia('(pointer: coarse)').matches", &touch)
			if menu != tt.wantMenu || touch != tt.touch {
				t.Errorf("with %s the Menu button shows: %v, touch: %v; want %v, %v", tt.preset, menu, touch, tt.wantMenu, tt.touch)
			}
			if e := tab.Emulation(); e.Viewport == nil || *e.Viewport != v {
				t.Errorf("Emulation().Viewport = %+v, want %+v", e.Viewport, v)
			}

			// The override survives navigations, to the same site and to
			// another one (another renderer process).
			for _, base := range []string{srv.URL, srv.cross} {
				mustNav(t, tab, base+page, nil)
				after, err := tab.MeasureViewport(t.Context())
				if err != nil {
					t.Fatalf("MeasureViewport: %v", err)
				}
				if after != want {
					t.Errorf("after navigating to %s the page measures %+v, want %+v", base, after, want)
				}
			}
		})
	}

	got, err := tab.SetViewport(t.Context(), nil)
	if err != nil {
		t.Fatalf("SetViewport(nil): %v", err)
	}
	if got != initial {
		t.Errorf("after the reset the page measures %+v, want the initial %+v", got, initial)
	}
	var touch bool
	if navEval(t, tab, "navigator.maxTouchPoints > 0", &touch); touch {
		t.Errorf("after the reset the page still has touch points")
	}
	if e := tab.Emulation(); e.Viewport == nil || *e.Viewport != driver.DefaultViewport {
		t.Errorf("Emulation().Viewport after the reset = %+v, want the launched browser's default %+v", e.Viewport, driver.DefaultViewport)
	}
}

func TestViewportWithoutViewportMeta(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)
	mustNav(t, tab, srv.URL+"/emulate-fixed.html", nil)
	v, _ := driver.ViewportPreset("mobile")
	got, err := tab.SetViewport(t.Context(), &v)
	if err != nil {
		t.Fatalf("SetViewport: %v", err)
	}
	// Mobile browsers lay out a page without <meta name=viewport> 980 px
	// wide, and zoom out to fit the 1200 px sheet.
	if got.InnerWidth == v.Width || got.ScrollWidth < 1200 {
		t.Errorf("SetViewport(mobile) on a fixed-width page measures %+v, want a layout wider than %d and a scrollWidth of at least 1200", got, v.Width)
	}
}

func TestSetViewportRejects(t *testing.T) {
	t.Parallel()
	_, tab := newTab(t)
	for _, v := range []driver.Viewport{{Width: 0, Height: 100}, {Width: 100, Height: 20000}, {Width: 100, Height: 100, DeviceScaleFactor: -1}} {
		if _, err := tab.SetViewport(t.Context(), &v); !errors.Is(err, driver.ErrInvalidArgument) {
			t.Errorf("SetViewport(%+v) = %v, want ErrInvalidArgument", v, err)
		}
	}
}

// TestRestoreEmulation detaches the tab's session, which drops its
// overrides, and applies them again to the new one.
func TestRestoreEmulation(t *testing.T) {
	// Not parallel: what it checks needs the tab to render as the visible
	// one, and parallel tests keep taking other tabs to the front.
	srv := serveNav(t)
	b, tab := newTab(t)
	mustNav(t, tab, srv.URL+"/emulate-viewport.html", nil)
	initial, err := tab.MeasureViewport(t.Context())
	if err != nil {
		t.Fatalf("MeasureViewport: %v", err)
	}
	v, _ := driver.ViewportPreset("mobile")
	want, err := tab.SetViewport(t.Context(), &v)
	if err != nil {
		t.Fatalf("SetViewport: %v", err)
	}
	dark := "dark"
	if _, err := tab.Emulate(t.Context(), driver.EmulationChange{ColorScheme: &dark}); err != nil {
		t.Fatalf("Emulate: %v", err)
	}

	old, err := tab.session(t.Context())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	if _, err := cdpapi.Call(t.Context(), b.conn.Browser(), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: target.SessionID(old.ID())}); err != nil {
		t.Fatalf("detaching: %v", err)
	}
	select {
	case <-old.Done():
	case <-t.Context().Done():
		t.Fatal("the detached session never closed")
	}
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatalf("Session after the detach: %v", err)
	}
	// Chromium drops a session's overrides with it; a launched browser's
	// tab has emulation defaults (1280x720), so its new session restores
	// the tab's whole emulation as it attaches, the agent's mobile
	// viewport included.
	if got, _ := tab.MeasureViewport(t.Context()); got != want {
		t.Errorf("after the detach the page measures %+v, want %+v restored with the new session (initially %+v)", got, want, initial)
	}
	if err := tab.restoreEmulation(t.Context(), s); err != nil {
		t.Fatalf("RestoreEmulation: %v", err)
	}
	if got, _ := tab.MeasureViewport(t.Context()); got != want {
		t.Errorf("after RestoreEmulation the page measures %+v, want %+v", got, want)
	}
	var isDark bool
	if navEval(t, tab, "matchMedia('(prefers-color-scheme: dark)').matches", &isDark); !isDark {
		t.Errorf("after RestoreEmulation the page does not prefer dark")
	}
}

func TestEmulate(t *testing.T) {
	t.Parallel()
	srv := serveNav(t)
	_, tab := newTab(t)
	mustNav(t, tab, srv.URL+"/echo", nil)
	str := func(s string) *string { return &s }
	num := func(f float64) *float64 { return &f }
	matches := func(query string) bool {
		var m bool
		navEval(t, tab, fmt.Sprintf("matchMedia(%q).matches", query), &m)
		return m
	}

	t.Run("media features", func(t *testing.T) {
		steps := []struct {
			c          driver.EmulationChange
			dark, less bool
		}{
			{driver.EmulationChange{ColorScheme: str("dark")}, true, false},
			{driver.EmulationChange{ReducedMotion: str("reduce")}, true, true}, // keeps the color scheme
			{driver.EmulationChange{ColorScheme: str("light")}, false, true},
			{driver.EmulationChange{ColorScheme: str("auto"), ReducedMotion: str("auto")}, false, false},
		}
		for _, st := range steps {
			if _, err := tab.Emulate(t.Context(), st.c); err != nil {
				t.Fatalf("Emulate: %v", err)
			}
			if got := matches("(prefers-color-scheme: dark)"); got != st.dark {
				t.Errorf("after %+v prefers dark = %v, want %v", st.c, got, st.dark)
			}
			if got := matches("(prefers-reduced-motion: reduce)"); got != st.less {
				t.Errorf("after %+v prefers reduced motion = %v, want %v", st.c, got, st.less)
			}
		}
	})

	t.Run("user agent and headers", func(t *testing.T) {
		got, err := tab.Emulate(t.Context(), driver.EmulationChange{
			UserAgent:    str("cdpkit-test/1.0"),
			ExtraHeaders: map[string]string{"X-Test": "yes", "Authorization": "Bearer s3cret"},
		})
		if err != nil {
			t.Fatalf("Emulate: %v", err)
		}
		if got.UserAgent != "cdpkit-test/1.0" || got.ExtraHeaders["X-Test"] != "yes" {
			t.Errorf("Emulate = %+v, want the user agent and headers in effect", got)
		}
		mustNav(t, tab, srv.URL+"/echo", nil)
		h := srv.lastHeaders()
		if h.Get("User-Agent") != "cdpkit-test/1.0" || h.Get("X-Test") != "yes" || h.Get("Authorization") != "Bearer s3cret" {
			t.Errorf("the server got User-Agent %q, X-Test %q, Authorization %q; want the emulated ones",
				h.Get("User-Agent"), h.Get("X-Test"), h.Get("Authorization"))
		}
		if ua := navString(t, tab, "navigator.userAgent"); ua != "cdpkit-test/1.0" {
			t.Errorf("navigator.userAgent = %q, want cdpkit-test/1.0", ua)
		}

		got, err = tab.Emulate(t.Context(), driver.EmulationChange{UserAgent: str(""), ExtraHeaders: map[string]string{}})
		if err != nil {
			t.Fatalf("Emulate(clear): %v", err)
		}
		if got.UserAgent != "" || got.ExtraHeaders != nil {
			t.Errorf("Emulate(clear) = %+v, want no user agent or headers", got)
		}
		mustNav(t, tab, srv.URL+"/echo", nil)
		h = srv.lastHeaders()
		if ua := h.Get("User-Agent"); !strings.Contains(ua, "Chrome/") || h.Get("X-Test") != "" {
			t.Errorf("after clearing the server got User-Agent %q, X-Test %q; want Chrome's and none", ua, h.Get("X-Test"))
		}
	})

	t.Run("cpu and network", func(t *testing.T) {
		got, err := tab.Emulate(t.Context(), driver.EmulationChange{CPUThrottling: num(4), Network: str("slow3g")})
		if err != nil {
			t.Fatalf("Emulate: %v", err)
		}
		if got.CPUThrottling != 4 || got.Network != "slow3g" {
			t.Errorf("Emulate = %+v, want cpu 4 and slow3g in effect", got)
		}
		var conn string
		navEval(t, tab, "navigator.connection ? navigator.connection.effectiveType : 'unknown'", &conn)
		if conn == "4g" {
			t.Errorf("with slow3g navigator.connection.effectiveType = %q, want slower", conn)
		}
		got, err = tab.Emulate(t.Context(), driver.EmulationChange{CPUThrottling: num(1), Network: str("none")})
		if err != nil {
			t.Fatalf("Emulate(off): %v", err)
		}
		if got.CPUThrottling != 0 || got.Network != "" {
			t.Errorf("Emulate(off) = %+v, want no throttling", got)
		}
		ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
		defer cancel()
		if _, err := tab.Navigate(ctx, srv.URL+"/nav-one.html"); err != nil {
			t.Errorf("Navigate after the network is back: %v", err)
		}
	})
}

// TestEmulateGeolocation runs alone, not in parallel: Chromium answers
// geolocation only to a visible page, and a headless browser shows one tab
// at a time, which parallel tests would keep taking to the front.
func TestEmulateGeolocation(t *testing.T) {
	srv := serveNav(t)
	_, tab := newTab(t)
	mustNav(t, tab, srv.URL+"/echo", nil)
	if err := tab.MakeActive(t.Context(), true); err != nil {
		t.Fatalf("MakeActive: %v", err)
	}
	const where = `new Promise(r => navigator.geolocation.getCurrentPosition(
		p => r(p.coords.latitude + "," + p.coords.longitude),
		e => r("error " + e.code), {timeout: 5000}))`
	got, err := tab.Emulate(t.Context(), driver.EmulationChange{Geolocation: &driver.Geolocation{Latitude: 35.6762, Longitude: 139.6503, Accuracy: 20}})
	if err != nil {
		t.Fatalf("Emulate: %v", err)
	}
	if got.Geolocation == nil || got.Geolocation.Latitude != 35.6762 {
		t.Errorf("Emulate = %+v, want the geolocation in effect", got)
	}
	if pos := navString(t, tab, where); pos != "35.6762,139.6503" {
		t.Errorf("the page's position = %q, want 35.6762,139.6503", pos)
	}
	if _, err := tab.Emulate(t.Context(), driver.EmulationChange{ClearGeolocation: true}); err != nil {
		t.Fatalf("Emulate(clear): %v", err)
	}
	if pos := navString(t, tab, where); !strings.HasPrefix(pos, "error") {
		t.Errorf("after clearing, the page's position = %q, want an error", pos)
	}
}

func TestEmulationChangeValidate(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(f float64) *float64 { return &f }
	tests := []struct {
		c       driver.EmulationChange
		mention string // "" when valid
	}{
		{driver.EmulationChange{}, ""},
		{driver.EmulationChange{ColorScheme: str("dark"), ReducedMotion: str("no-preference"), CPUThrottling: num(20), Network: str("fast3g")}, ""},
		{driver.EmulationChange{Geolocation: &driver.Geolocation{Latitude: -90, Longitude: 180}}, ""},
		{driver.EmulationChange{ColorScheme: str("sepia")}, "colorScheme"},
		{driver.EmulationChange{ReducedMotion: str("less")}, "reducedMotion"},
		{driver.EmulationChange{CPUThrottling: num(0.5)}, "cpuThrottling"},
		{driver.EmulationChange{CPUThrottling: num(21)}, "cpuThrottling"},
		{driver.EmulationChange{Network: str("4g")}, "network"},
		{driver.EmulationChange{Geolocation: &driver.Geolocation{Latitude: 91}}, "latitude"},
		{driver.EmulationChange{Geolocation: &driver.Geolocation{Longitude: -181}}, "longitude"},
		{driver.EmulationChange{Geolocation: &driver.Geolocation{Accuracy: -1}}, "accuracy"},
		{driver.EmulationChange{Geolocation: &driver.Geolocation{}, ClearGeolocation: true}, "not both"},
		{driver.EmulationChange{ExtraHeaders: map[string]string{"": "x"}}, "header name"},
	}
	for _, tt := range tests {
		err := tt.c.Validate()
		if tt.mention == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", tt.c, err)
			}
			continue
		}
		if !errors.Is(err, driver.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("Validate(%+v) = %v, want ErrInvalidArgument mentioning %q", tt.c, err, tt.mention)
		}
	}
}
