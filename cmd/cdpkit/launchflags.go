package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit"
)

// launchFlags are the launch options (issue #23 item 3): each a flag, with
// a CDPKIT_* variable as its default. apply puts them into cdpkit.Options,
// whose New checks them again (the device name, the display for --headed).
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

// apply checks the launch flags' form while they are parsed, so that the
// command exits with its usage error, and puts them into o; cdpkit.New
// checks the rest.
func (l *launchFlags) apply(o *cdpkit.Options) error {
	if l.viewport != "" {
		if l.device != "" {
			return errors.New("give --viewport or --device, not both")
		}
		w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(l.viewport)), "x")
		width, werr := strconv.Atoi(w)
		height, herr := strconv.Atoi(h)
		if !ok || werr != nil || herr != nil || width <= 0 || height <= 0 {
			return errors.New("--viewport " + l.viewport + ": want WxH in CSS pixels, such as 1280x720")
		}
		o.ViewportWidth, o.ViewportHeight = width, height
	}
	if l.proxyBypass != "" && l.proxyServer == "" {
		return errors.New("--proxy-bypass needs --proxy-server")
	}
	o.Headful = l.headed
	if l.userDataDir != "" {
		dir, err := filepath.Abs(l.userDataDir)
		if err != nil {
			return err
		}
		o.UserDataDir = dir
	}
	o.Device, o.UserAgent, o.ProxyServer = l.device, l.userAgent, l.proxyServer
	if l.proxyBypass != "" {
		o.ProxyBypass = strings.Split(l.proxyBypass, ",")
	}
	o.Lang, o.Timezone, o.IgnoreHTTPSErrors = l.lang, l.timezone, l.ignoreHTTPSErrors
	return nil
}
