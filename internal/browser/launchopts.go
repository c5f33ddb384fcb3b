package browser

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // --timezone names are checked the same on every OS

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// The launch options people expect of a browser tool (issue #23 item 3):
// the switches and environment they give a launched browser, and the
// emulation every tab starts with. See Options for each one's contract.

// CheckDisplay reports whether a headed browser can show a window here:
// on macOS and Windows always; elsewhere when DISPLAY or WAYLAND_DISPLAY is
// set. Otherwise it returns ErrNoDisplay.
func CheckDisplay() error {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return nil
	}
	if os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" {
		return nil
	}
	return driver.ErrNoDisplay
}

// langPattern is a BCP 47 tag as Chromium's --lang takes it: en, de-DE,
// zh-Hant-TW.
var langPattern = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// ParseProxyServer reads an HTTP proxy as --proxy-server takes it:
// host:port or http://[user:password@]host:port.
func ParseProxyServer(s string) (*url.URL, error) {
	raw := s
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" || u.Port() == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("%w: proxy server %q: want an HTTP proxy as host:port or http://[user:password@]host:port", driver.ErrInvalidArgument, redactProxy(s))
	}
	return u, nil
}

// redactProxy hides a proxy URL's password in messages.
func redactProxy(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// CheckLaunchOptions checks the launch options of o without starting
// anything; its errors wrap ErrInvalidArgument, or are ErrNoDisplay.
func (o *Options) CheckLaunchOptions() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{driver.ErrInvalidArgument}, args...)...)
	}
	if o.attaching() {
		var set []string
		for name, on := range map[string]bool{"headed": o.Headful, "user-data-dir": o.UserDataDir != "", "user-agent": o.UserAgent != "",
			"proxy-server": o.ProxyServer != "", "lang": o.Lang != "", "ignore-https-errors": o.IgnoreHTTPSErrors} {
			if on {
				set = append(set, "--"+name)
			}
		}
		if len(set) > 0 {
			slices.Sort(set)
			return bad("%s: only for a browser cdpkit launches, not one it attaches to", strings.Join(set, ", "))
		}
	}
	if o.Headful && !o.attaching() {
		if err := CheckDisplay(); err != nil {
			return err
		}
	}
	if o.UserDataDir != "" && !filepath.IsAbs(o.UserDataDir) {
		return bad("user-data-dir %q: give an absolute path", o.UserDataDir)
	}
	if o.Viewport != nil {
		if err := o.Viewport.Validate(); err != nil {
			return err
		}
	}
	if o.UserAgent != "" {
		if err := policy.CheckHeaderValue(o.UserAgent); err != nil {
			return bad("user agent: %v", err)
		}
	}
	if o.Lang != "" && !langPattern.MatchString(o.Lang) {
		return bad("lang %q: want a language tag such as en, de-DE or pt-BR", o.Lang)
	}
	if o.Timezone != "" {
		if _, err := time.LoadLocation(o.Timezone); err != nil || o.Timezone == "Local" {
			return bad("timezone %q: want an IANA name such as Europe/Berlin or America/New_York", o.Timezone)
		}
	}
	if o.ProxyServer != "" {
		if _, err := ParseProxyServer(o.ProxyServer); err != nil {
			return err
		}
	} else if len(o.ProxyBypass) > 0 {
		return bad("a proxy bypass list needs a proxy server")
	}
	return nil
}

// launchFlags are the browser switches the launch options ask for. The
// viewport sizes the window too, so a headed window fits it.
func (o *Options) launchFlags() []string {
	var f []string
	if o.Viewport != nil {
		f = append(f, fmt.Sprintf("--window-size=%d,%d", o.Viewport.Width, o.Viewport.Height))
	}
	if o.UserAgent != "" {
		f = append(f, "--user-agent="+o.UserAgent)
	}
	if o.Lang != "" {
		// --lang sets the UI language where Chromium reads it; headless
		// takes navigator.language and Accept-Language from --accept-lang.
		f = append(f, "--lang="+o.Lang, "--accept-lang="+o.Lang)
	}
	if o.IgnoreHTTPSErrors {
		f = append(f, "--ignore-certificate-errors")
	}
	return f
}

// launchEnv is the environment the launch options add for the browser:
// TZ (read on Linux and macOS, so even workers and tabs cdpkit never
// attached to follow --timezone) and, on Linux, LANGUAGE (which a headed
// Chromium there reads instead of --lang).
func (o *Options) launchEnv() []string {
	var env []string
	if o.Timezone != "" {
		env = append(env, "TZ="+o.Timezone)
	}
	if o.Lang != "" && runtime.GOOS == "linux" {
		env = append(env, "LANGUAGE="+strings.ReplaceAll(o.Lang, "-", "_"))
	}
	return append(env, o.extraEnv...)
}

// tabDefaults is the emulation every tab starts with: the viewport (or
// device preset), the time zone and the locale of the options.
func (o *Options) tabDefaults() driver.Emulation {
	var e driver.Emulation
	if o.Viewport != nil {
		v := *o.Viewport
		e.Viewport = &v
	}
	e.Timezone = o.Timezone
	e.Locale = o.Lang
	return e
}

// applyDefaults gives a tab, on its first session, the browser's default
// emulation, before anything loads in it (new tabs open on about:blank).
// What the emulate tools change later stays theirs.
func (t *Tab) applyDefaults(ctx context.Context, s cdpapi.Session) error {
	d := t.b.defaults
	if d.Viewport == nil && d.Timezone == "" && d.Locale == "" {
		return nil
	}
	t.emu.mu.Lock()
	if !t.emu.seeded {
		t.emu.seeded = true
		st := &t.emu.state
		if st.Viewport == nil && d.Viewport != nil {
			v := *d.Viewport
			st.Viewport = &v
		}
		if st.Timezone == "" {
			st.Timezone = d.Timezone
		}
		if st.Locale == "" {
			st.Locale = d.Locale
		}
	}
	t.emu.mu.Unlock()
	return t.restoreEmulation(ctx, s)
}

func applyTimezone(ctx context.Context, s cdpapi.Session, tz string) error {
	if _, err := cdpapi.Call(ctx, s, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: tz}); err != nil {
		return fmt.Errorf("browser: setting the time zone: %w", err)
	}
	return nil
}

func applyLocale(ctx context.Context, s cdpapi.Session, locale string) error {
	if _, err := cdpapi.Call(ctx, s, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: locale}); err != nil {
		return fmt.Errorf("browser: setting the locale: %w", err)
	}
	return nil
}
