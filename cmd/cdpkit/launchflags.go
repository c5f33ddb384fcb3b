package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// launchFlags are the launch options (issue #23 item 3): each a flag, with
// a CDPKIT_* variable as its default. They become cdpkit.Options fields,
// which check them again (and the display, for --headed).
type launchFlags struct {
	headed            bool
	userDataDir       string
	viewport          string // WxH
	device            string
	userAgent         string
	proxyServer       string
	proxyBypass       string
	lang              string
	timezone          string
	ignoreHTTPSErrors bool
}

func (l *launchFlags) register(fs *flag.FlagSet, env *envBools) {
	fs.BoolVar(&l.headed, "headed", env.get("CDPKIT_HEADED"), "show the browser window instead of running headless (needs a display: on Linux DISPLAY or WAYLAND_DISPLAY, else NO_DISPLAY)")
	fs.StringVar(&l.userDataDir, "user-data-dir", os.Getenv("CDPKIT_USER_DATA_DIR"), "keep the browser profile (cookies, storage, logins) in `dir` across runs; cdpkit never deletes it, and refuses it while another browser holds it (PROFILE_IN_USE, naming its pid)")
	fs.StringVar(&l.viewport, "viewport", os.Getenv("CDPKIT_VIEWPORT"), "every tab's viewport as `WxH` in CSS pixels, such as 1280x720 (emulate's reset returns to it)")
	fs.StringVar(&l.device, "device", os.Getenv("CDPKIT_DEVICE"), "emulate a device preset in every tab: `name` mobile (390x844, 3x, touch), tablet (820x1180, 2x, touch) or desktop (1280x800)")
	fs.StringVar(&l.userAgent, "user-agent", os.Getenv("CDPKIT_USER_AGENT"), "the browser's user agent `string` (navigator.userAgent and the User-Agent header)")
	fs.StringVar(&l.proxyServer, "proxy-server", os.Getenv("CDPKIT_PROXY_SERVER"), "send all traffic through this HTTP proxy, `host:port` or http://[user:password@]host:port, after the URL policy allowed it")
	fs.StringVar(&l.proxyBypass, "proxy-bypass", os.Getenv("CDPKIT_PROXY_BYPASS"), "comma-separated `hosts` that skip --proxy-server (host, *.domain, .domain, IP/CIDR, <local>; loopback skips it unless <-loopback> is listed)")
	fs.StringVar(&l.lang, "lang", os.Getenv("CDPKIT_LANG"), "the browser's `language`, such as de-DE: navigator.language, Accept-Language and Intl's locale")
	fs.StringVar(&l.timezone, "timezone", os.Getenv("CDPKIT_TIMEZONE"), "the browser's time `zone`, an IANA name such as Europe/Berlin")
	fs.BoolVar(&l.ignoreHTTPSErrors, "ignore-https-errors", env.get("CDPKIT_IGNORE_HTTPS_ERRORS"), "load HTTPS pages whose certificates do not verify (self-signed, expired, wrong host)")
}

// check catches malformed values while the flags are parsed, so that the
// command exits with its usage error; cdpkit.New checks the rest.
func (l *launchFlags) check() error {
	if l.viewport != "" {
		if l.device != "" {
			return errors.New("give --viewport or --device, not both")
		}
		if _, err := driver.ParseViewport(l.viewport); err != nil {
			return errors.New("--" + strings.TrimPrefix(err.Error(), driver.ErrInvalidArgument.Error()+": "))
		}
	}
	if l.device != "" {
		if _, ok := driver.ViewportPreset(l.device); !ok {
			return errors.New("--device " + l.device + ": want mobile, tablet or desktop")
		}
	}
	if l.proxyBypass != "" && l.proxyServer == "" {
		return errors.New("--proxy-bypass needs --proxy-server")
	}
	return nil
}

// fill puts the launch options into bo, for doctor, which starts a
// browser without the public API; the values were checked by check.
func (l *launchFlags) fill(bo *browser.Options) {
	var o cdpkit.Options
	l.apply(&o)
	bo.Headful, bo.UserDataDir, bo.UserAgent = o.Headful, o.UserDataDir, o.UserAgent
	bo.ProxyServer, bo.ProxyBypass = o.ProxyServer, o.ProxyBypass
	bo.Lang, bo.Timezone, bo.IgnoreHTTPSErrors = o.Lang, o.Timezone, o.IgnoreHTTPSErrors
	if l.viewport != "" {
		bo.Viewport, _ = driver.ParseViewport(l.viewport)
	} else if v, ok := driver.ViewportPreset(l.device); ok {
		bo.Viewport = &v
	}
}

// apply puts the launch options into o.
func (l *launchFlags) apply(o *cdpkit.Options) error {
	o.Headful = l.headed
	if l.userDataDir != "" {
		dir, err := filepath.Abs(l.userDataDir)
		if err != nil {
			return err
		}
		o.UserDataDir = dir
	}
	if l.viewport != "" {
		v, err := driver.ParseViewport(l.viewport)
		if err != nil {
			return err
		}
		o.ViewportWidth, o.ViewportHeight = v.Width, v.Height
	}
	o.Device, o.UserAgent, o.ProxyServer = l.device, l.userAgent, l.proxyServer
	if l.proxyBypass != "" {
		o.ProxyBypass = strings.Split(l.proxyBypass, ",")
	}
	o.Lang, o.Timezone, o.IgnoreHTTPSErrors = l.lang, l.timezone, l.ignoreHTTPSErrors
	return nil
}
