package browser

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// Options say how to get a browser: launch one (the default) or attach to
// a running one (BrowserURL, WSEndpoint or AutoConnect). Nil means defaults.
type Options struct {
	// ExecPath is the browser to launch; empty means search PATH.
	ExecPath string
	// Args are extra command-line flags for a launched browser.
	Args []string
	// Headful shows a window instead of running headless.
	Headful bool

	// BrowserURL attaches to http://host:port via /json/version.
	BrowserURL string
	// WSEndpoint attaches to a ws:// or wss:// DevTools URL, sending
	// WSHeaders with the handshake. A token in its query or a header
	// value never reaches a log or an error. A 429 or 503 answer is a
	// *BusyError.
	WSEndpoint string
	WSHeaders  http.Header
	// WebDriverURL borrows a browser from a W3C WebDriver remote end
	// (chromedriver, Selenium Grid 4): a session is created with
	// WebDriverCaps merged over cdpkit's capabilities, its browser is
	// attached to through se:cdp or goog:chromeOptions.debuggerAddress,
	// and the session is deleted when the Browser closes. A lost session
	// is created anew, as a crashed browser is relaunched.
	WebDriverURL  string
	WebDriverCaps map[string]json.RawMessage
	// WebDriverWait, if positive, bounds the wait for a WebDriver session
	// (a Grid queues the request while its slots are busy) below the
	// call's own deadline; the request is then withdrawn, and a session
	// that arrives later is deleted.
	WebDriverWait time.Duration
	// WebDriverLedger is the directory where held sessions are recorded,
	// so that the next start deletes those of a cdpkit that was killed
	// (webdriver.Ledger); empty means webdriver.DefaultLedgerDir.
	WebDriverLedger string
	// AutoConnect attaches to the browser using this user-data-dir, via the
	// DevToolsActivePort file it writes (Chrome 144+ remote debugging).
	AutoConnect string

	// CDPTimeout bounds CDP commands that have no other deadline; zero
	// means cdp.DefaultTimeout.
	CDPTimeout time.Duration
	// LaunchTimeout bounds starting or reaching the browser; zero means 30s.
	LaunchTimeout time.Duration

	Logger *slog.Logger

	// URLPolicy judges every document request of every frame and tab, in
	// the browser (see guard.go); nil means the defaults of policy.Policy.
	URLPolicy *policy.Policy
	// DownloadDir is where downloads are saved, in every browser context;
	// empty leaves downloads as the browser handles them (headless: refused).
	DownloadDir string
	// DownloadMax caps one download's bytes; bigger ones are cancelled.
	// Zero means driver.DefaultDownloadMax.
	DownloadMax int64
	// DownloadFiles bounds the downloads one session (scope) keeps (in
	// progress or saved), and DownloadTotal the bytes they hold; past them
	// a download is cancelled, its file removed, and reported refused. Zero means driver.DefaultDownloadFiles
	// and driver.DefaultDownloadTotal.
	DownloadFiles int
	DownloadTotal int64

	// StorageState is loaded into every new browser context: its cookies
	// when the context is made, its localStorage when cdpkit first attaches
	// to a tab of it. Nil means none.
	StorageState *driver.StorageState

	// The launch options (launchopts.go); CheckLaunchOptions checks them.
	// Those that are browser switches (Headful, UserDataDir, UserAgent,
	// ProxyServer, Lang, IgnoreHTTPSErrors) apply only to a launched
	// browser; Viewport, Timezone and Lang are also emulated in each tab
	// cdpkit attaches to.

	// UserDataDir is a persistent profile, an absolute path: cookies and
	// storage outlive cdpkit, which never deletes it. A launch on a
	// profile another live browser holds fails with a *ProfileInUseError.
	// Empty means a temporary profile, removed on close.
	UserDataDir string
	// Viewport is every tab's viewport until the emulate tools change it
	// (their reset returns to it); nil means the window's.
	Viewport *driver.Viewport
	// UserAgent replaces the browser's user agent string.
	UserAgent string
	// ProxyServer is an HTTP proxy (host:port or http://[user:pass@]host:port)
	// that the egress proxy sends all traffic through, after the URL policy
	// allowed it, except to hosts that ProxyBypass lists (Chromium's
	// --proxy-bypass-list syntax: host, *.domain, .domain, IP/CIDR,
	// <local>, <-loopback>).
	ProxyServer string
	ProxyBypass []string
	// Lang is the browser's language (navigator.language, Accept-Language
	// and Intl's default locale), such as de-DE.
	Lang string
	// Timezone is an IANA time zone name, such as Europe/Berlin.
	Timezone string
	// IgnoreHTTPSErrors makes pages load over HTTPS with certificates that
	// do not verify (self-signed, expired, wrong host).
	IgnoreHTTPSErrors bool

	// NoNetworkLog turns each tab's request log off, so that `make bench`
	// can measure what the log adds to a navigation; list_network_requests
	// then lists nothing. cdpkit itself never sets it.
	NoNetworkLog bool

	// noGuard turns the guard off, for tests that measure its cost.
	noGuard bool
	// portTransport launches with --remote-debugging-port=0 as on
	// Windows, so tests exercise that path on Linux.
	portTransport bool
	profile       string // set by a Manager: the user-data-dir it keeps across relaunches
	// tempDir, if set, is where a launch makes its temporary profile and
	// the browser's TMPDIR, and what a Manager sweeps; os.TempDir()
	// otherwise. Tests set it rather than TMPDIR, whose t.Setenv would
	// keep them out of the parallel phase.
	tempDir string
	// extraEnv is added to a launched browser's environment: tests mark
	// a launch's processes with it (crashpad carries nothing else).
	extraEnv []string
}

func (o *Options) attaching() bool {
	return o.BrowserURL != "" || o.WSEndpoint != "" || o.AutoConnect != "" || o.WebDriverURL != ""
}

func (o *Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

func (o *Options) urlPolicy() *policy.Policy {
	if o.URLPolicy != nil {
		return o.URLPolicy
	}
	return &policy.Policy{}
}

func (o *Options) launchTimeout() time.Duration {
	if o.LaunchTimeout > 0 {
		return o.LaunchTimeout
	}
	return 30 * time.Second
}
