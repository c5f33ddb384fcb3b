// Package cdpkit drives a real Chromium from Go with the same operations,
// rules and errors that cdpkit's MCP tools and CLI give an agent: open
// tabs, navigate, read the page as a compact snapshot with element refs,
// act on elements by ref, and learn what each action changed.
//
//	b, err := cdpkit.Launch(ctx, nil)
//	if err != nil { … }
//	defer b.Close()
//	tab, err := b.NewTab(ctx, "https://example.com")
//	snap, err := tab.Snapshot(ctx, nil)
//	changes, err := tab.Click(ctx, cdpkit.Ref(snap.RefOf("More information")))
//
// Every method runs the tool of the same name through cdpkit's registry:
// the same argument checks, URL policy, per-tab queue, dialog and crash
// checks, deadlines and error taxonomy as an MCP client or the CLI gets.
// Tab has a method for each verb an agent has (dialogs, upload, text,
// hover, scroll, keys, select, forms, waits, screenshots and PDFs,
// cookies and storage state, the network log and mocks, traces,
// recordings); Call runs any other tool by name. Results are structs. A
// failed call returns an *Error carrying the code, message, recoverable
// flag and hint that MCP and the CLI show; errors.Is matches it against
// the Err sentinels by code.
//
// AddTools puts cdpkit's tools into another go-sdk MCP server.
package cdpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/apienv"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/lease"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// Options configure a Browser. Nil means defaults; the zero value of each
// field is its default.
type Options struct {
	// ExecPath is the Chromium to launch; empty means search the usual
	// places and PATH.
	ExecPath string
	// Args are extra command-line flags for a launched browser.
	Args []string
	// Headful shows a window instead of running headless.
	Headful bool

	// Endpoint, if set, attaches to a running Chromium instead of
	// launching one: http://host:port (its remote debugging port) or a
	// ws:// or wss:// DevTools URL (a browserless-style pool's, say, with
	// its token in the query), sent with WSHeaders. Attach sets it. The
	// token and the header values never reach a log or an error. A pool
	// that answers 429 or 503 gives BROWSER_BUSY once its Retry-After no
	// longer fits in the call's deadline; until then cdpkit waits and
	// retries.
	Endpoint  string
	WSHeaders http.Header
	// WebDriverURL, if set, borrows the browser from a W3C WebDriver
	// remote end instead (chromedriver, or a Selenium Grid 4 at
	// http://grid:4444): cdpkit creates a session for a headless
	// Chromium, with WebDriverCapabilities merged over its own (a
	// goog:chromeOptions object is merged field by field, its args
	// appended), drives it over CDP (se:cdp, or
	// goog:chromeOptions.debuggerAddress), and deletes the session on
	// Close and idle shutdown; the next New deletes the sessions of a
	// cdpkit that was killed. A lost session is created anew, like a
	// crashed browser, with sessionReset. Not with Endpoint or
	// AutoConnect.
	WebDriverURL          string
	WebDriverCapabilities map[string]json.RawMessage
	// WebDriverWait, if positive, bounds the wait for a WebDriver session
	// while a Grid queues the request (every slot busy), below the call's
	// own deadline. cdpkit then withdraws the request: the call fails
	// with BROWSER_BUSY, and a session the Grid creates for it later is
	// deleted as it arrives (Close waits a few seconds for that).
	WebDriverWait time.Duration
	// AutoConnect, if set, attaches to the Chrome that uses this
	// user-data-dir, through the DevToolsActivePort file it writes.
	AutoConnect string

	// ArtifactDir is where screenshots and saved files go; empty means a
	// new temporary directory, removed by Close.
	ArtifactDir string
	// UploadRoots are the directories upload_file may read files from;
	// nil means the artifact dir and the working directory.
	UploadRoots []string
	// Timeout bounds each call that the caller's context does not bound
	// sooner; zero means 30 s, and at most 120 s.
	Timeout time.Duration
	// CDPTimeout bounds a protocol command without a deadline of its own;
	// zero means 15 s. LaunchTimeout bounds starting or reaching the
	// browser; zero means 30 s.
	CDPTimeout    time.Duration
	LaunchTimeout time.Duration
	// IdleTimeout stops the browser after this long without a call (the
	// next call starts it again); zero means never.
	IdleTimeout time.Duration
	// QueueLimit is how many state-changing calls may wait for one tab
	// before BUSY_QUEUE_FULL; zero means 8.
	QueueLimit int
	// MaxScreenshotPixels and MaxImageBytes bound a screenshot's width ×
	// height and encoded size (bigger ones are downscaled); zero means
	// 16,777,216 pixels and 5 MiB.
	MaxScreenshotPixels int
	MaxImageBytes       int
	// AllowEval enables Tab.Evaluate (and the evaluate_script tool), which
	// runs JavaScript in the page; it is off by default, as in MCP.
	AllowEval bool
	// Dialogs says which JavaScript dialogs are answered without the
	// caller: "report" (the default: alerts and beforeunload are accepted,
	// confirm and prompt wait for an answer), "accept" or "dismiss".
	Dialogs DialogPolicy
	// AllowedOrigins, BlockedOrigins, AllowPrivateNetworks and
	// BlockLoopback are the URL policy, as cdpkit's flags of the same
	// names: by default private networks are refused and loopback allowed.
	AllowedOrigins       []string
	BlockedOrigins       []string
	AllowPrivateNetworks bool
	BlockLoopback        bool
	// AllowFileURLs are the directories whose files pages may open with
	// file: URLs (--allow-file-urls); empty refuses every file: URL. Each
	// must be an existing directory; a relative one is made absolute.
	AllowFileURLs []string

	// StorageState, if set, is a storage state in Playwright's
	// storageState JSON shape (cookies and localStorage, as the
	// save_storage_state tool writes), loaded into every new browser
	// context.
	StorageState []byte
	// DownloadMax caps one download's bytes; downloads land in the
	// artifact dir's downloads/. Zero means the default (see
	// CDPKIT_DOWNLOAD_MAX in docs/flags.md).
	DownloadMax int64
	// ShowSecrets shows credential headers in the network tools' results
	// instead of <redacted>.
	ShowSecrets bool

	// The launch options, as cdpkit's flags of the same names
	// (docs/flags.md). Headful (--headed) needs a display on Linux
	// (DISPLAY or WAYLAND_DISPLAY), else New fails with NO_DISPLAY.
	// UserDataDir, UserAgent, ProxyServer, Lang and IgnoreHTTPSErrors are
	// browser switches, refused (INVALID_ARGS) with Endpoint or AutoConnect.

	// UserDataDir is a persistent profile that cdpkit never deletes; a
	// launch fails with PROFILE_IN_USE while another browser holds it.
	// Empty means a temporary profile, removed by Close.
	UserDataDir string
	// ViewportWidth and ViewportHeight, when set, are every tab's viewport
	// in CSS pixels until the emulate tools change it; unset, a launched
	// Chromium's tabs are 1280×720. Device names an emulate preset
	// (mobile, tablet or desktop) instead.
	ViewportWidth  int
	ViewportHeight int
	Device         string
	// UserAgent replaces the browser's user agent string.
	UserAgent string
	// ProxyServer is an HTTP proxy, host:port or
	// http://[user:password@]host:port, that all traffic goes through after
	// the URL policy allowed it, except to the hosts ProxyBypass lists
	// (Chromium's bypass-list syntax; loopback bypasses unless it lists
	// <-loopback>).
	ProxyServer string
	ProxyBypass []string
	// Lang is the browser's language, such as de-DE: navigator.language,
	// Accept-Language and Intl's default locale.
	Lang string
	// Timezone is an IANA time zone name, such as Europe/Berlin.
	Timezone string
	// IgnoreHTTPSErrors loads HTTPS pages whose certificates do not verify.
	IgnoreHTTPSErrors bool

	// LeaseDir, if set, is the directory of a tab lease store (created
	// 0700), shared with every cdpkit process that uses it (cdpkit's own
	// is leases/ in its state dir): Claim leases a tab there so that other
	// agents are refused it. Empty means leases are off, and Claim fails
	// with INVALID_ARGS.
	LeaseDir string

	// Logger receives cdpkit's logs; nil discards them.
	Logger *slog.Logger

	// Browser is the browser to drive: "chromium" (the default when
	// empty) or "firefox", over WebDriver BiDi (firefox-esr or firefox on
	// PATH, or ExecPath). Firefox offers fewer tools (see docs/tools.md's
	// tool table); Endpoint must then be its ws:// BiDi address, and
	// AutoConnect, StorageState and the URL policy's in-browser guard do
	// not apply.
	Browser string
}

// Browser is a Chromium that cdpkit launched or attached to, with its tabs.
// Its methods may be called from any goroutine: calls on different tabs
// run concurrently, and state-changing calls on one tab wait their turn.
// If the browser crashes, the next call starts a new one.
type Browser struct {
	backend string // tools.BackendChromium or tools.BackendFirefox
	env     *tools.Env
	tools   map[string]*tools.Tool
	tempDir string // the artifact dir Close removes; "" when the caller chose it
}

// New returns a Browser that starts (or attaches to) Chromium on its first
// call rather than now, as cdpkit's own servers use it; Launch and Attach
// are New and a first start. It fails only on bad options or an artifact
// dir it cannot create. Close releases it, started or not.
func New(o *Options) (*Browser, error) {
	if o == nil {
		o = &Options{}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dialogs, err := driver.ParseDialogPolicy(string(o.Dialogs))
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error(), Hint: "use report, accept or dismiss"}
	}
	backend, err := tools.ParseBackend(o.Browser)
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error(), Hint: "use chromium or firefox"}
	}
	if backend == tools.BackendFirefox && (o.AutoConnect != "" || o.WebDriverURL != "" || o.Endpoint != "" && !strings.HasPrefix(o.Endpoint, "ws")) {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: "Firefox is attached to by its ws:// WebDriver BiDi address only",
			Hint: "start Firefox with --remote-debugging-port and give the ws:// address it prints"}
	}
	fileDirs, err := fileURLDirs(o.AllowFileURLs)
	if err != nil {
		return nil, err
	}
	b := &Browser{backend: backend, tools: map[string]*tools.Tool{}}
	dir := o.ArtifactDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "cdpkit-artifacts-"); err != nil {
			return nil, fmt.Errorf("cdpkit: creating an artifact dir: %w", err)
		}
		b.tempDir = dir
	}
	artifacts, err := policy.OpenArtifacts(dir)
	if err != nil {
		b.removeTemp()
		return nil, fmt.Errorf("cdpkit: %w", err)
	}
	// One policy for the tools' early check and the browser's guard, so
	// that its DNS cache is shared.
	urls := &policy.Policy{AllowedOrigins: o.AllowedOrigins, BlockedOrigins: o.BlockedOrigins,
		AllowPrivateNetworks: o.AllowPrivateNetworks, BlockLoopback: o.BlockLoopback, FileDirs: fileDirs}
	browsers, err := newManager(o, backend, log, urls, filepath.Join(artifacts.Dir(), "downloads"))
	if err != nil {
		b.removeTemp()
		return nil, err
	}
	b.env = &tools.Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: o.Timeout,
		QueueLimit: o.QueueLimit, MaxScreenshotPixels: o.MaxScreenshotPixels, MaxImageBytes: o.MaxImageBytes,
		AllowEval: o.AllowEval, ShowSecrets: o.ShowSecrets, DialogPolicy: dialogs, URLPolicy: urls}
	if o.UploadRoots != nil {
		b.env.UploadRoots = policy.UploadRoots(o.UploadRoots)
	}
	if o.LeaseDir != "" {
		store, err := lease.Open(o.LeaseDir, nil)
		if err != nil {
			b.removeTemp()
			return nil, &Error{Code: string(tools.InvalidArgs), Message: "LeaseDir: " + err.Error(), Hint: "give a directory only you may read and write"}
		}
		b.env.Leases, b.env.Client = store, "go"
	}
	for _, t := range tools.ForBackend(tools.All(), backend) {
		b.tools[t.Name] = &t
	}
	return b, nil
}

// Launch starts a headless Chromium (see Options) and returns it once it
// answers. ctx bounds only the launch; the browser runs until Close.
func Launch(ctx context.Context, o *Options) (*Browser, error) {
	if o != nil && (o.Endpoint != "" || o.AutoConnect != "") {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: "Launch with an endpoint to attach to", Hint: "use Attach"}
	}
	return start(ctx, o)
}

// Attach connects to a running Chromium at endpoint: http://host:port
// (its remote debugging port) or a ws:// DevTools URL. ctx bounds only
// connecting; Close disconnects and leaves that browser running.
func Attach(ctx context.Context, endpoint string, o *Options) (*Browser, error) {
	if endpoint == "" {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: "no endpoint to attach to", Hint: "give http://host:port or a ws:// DevTools URL"}
	}
	var oo Options
	if o != nil {
		oo = *o
	}
	oo.Endpoint = endpoint
	return start(ctx, &oo)
}

// start is New and a first start, bounded by ctx.
func start(ctx context.Context, o *Options) (*Browser, error) {
	b, err := New(o)
	if err != nil {
		return nil, err
	}
	if _, err := b.env.Browsers.Driver(ctx); err != nil {
		b.Close()
		return nil, asError(err)
	}
	return b, nil
}

func init() {
	// cdpkit's own commands serve the registry's tools on a Browser made
	// with New; they reach its environment through apienv.
	apienv.Of = func(b any) *tools.Env { return b.(*Browser).env }
}

// Close stops a launched browser (or disconnects from an attached one,
// leaving it and its tabs running), removes the temporary artifact dir if
// Options.ArtifactDir was empty, and releases the artifact dir. Calls in
// flight fail, and later calls fail with SESSION_CLOSED. Screen recordings
// still running are first encoded, for two minutes at most. Close waits
// for the browser process to exit; it is safe to call more than once.
func (b *Browser) Close() error {
	// Screen recordings still capturing are encoded before the browser
	// goes; the log says where each was saved.
	ctx, cancel := context.WithTimeout(context.Background(), recordingsWait)
	tools.FinishRecordings(ctx, b.env)
	cancel()
	err := b.env.Browsers.Close()
	b.env.Artifacts.Close()
	b.removeTemp()
	if errors.Is(err, driver.ErrClosed) {
		return nil
	}
	return err
}

// fileURLDirs makes AllowFileURLs absolute, refusing one that is not an
// existing directory.
func fileURLDirs(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if fi, serr := os.Stat(abs); d == "" || err != nil || serr != nil || !fi.IsDir() {
			return nil, &Error{Code: string(tools.InvalidArgs), Message: fmt.Sprintf("AllowFileURLs: %q is not a directory", d),
				Hint: "name existing directories whose files pages may open"}
		}
		out = append(out, abs)
	}
	return out, nil
}

// recordingsWait bounds how long Close waits for screen recordings to be
// encoded.
const recordingsWait = 2 * time.Minute

func (b *Browser) removeTemp() {
	if b.tempDir != "" {
		os.RemoveAll(b.tempDir)
	}
}

// ArtifactDir is the directory screenshots and saved files go to.
func (b *Browser) ArtifactDir() string { return b.env.Artifacts.Dir() }

// TabInfo describes an open tab.
type TabInfo struct {
	ID     string `json:"id"`
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active"`
	// Crashed says the tab's renderer crashed; navigating it recovers it.
	Crashed bool `json:"crashed,omitempty"`
}

// NewTab opens a tab, makes it the active one and loads url unless it is
// empty (about:blank). ctx bounds opening and loading.
func (b *Browser) NewTab(ctx context.Context, url string) (*Tab, error) {
	var out struct {
		ID string `json:"id"`
	}
	if err := b.call(ctx, "new_page", map[string]any{"url": url}, &out); err != nil {
		return nil, err
	}
	return &Tab{b: b, id: out.ID}, nil
}

// Tabs lists the open tabs in the order they were opened. ctx bounds the
// call (and starting a browser, after a crash).
func (b *Browser) Tabs(ctx context.Context) ([]TabInfo, error) {
	var out struct {
		Pages []TabInfo `json:"pages"`
	}
	if err := b.call(ctx, "list_pages", nil, &out); err != nil {
		return nil, err
	}
	return out.Pages, nil
}

// Tab returns the tab a selector names, as in the tools' target argument:
// "active" (or ""), "index:N", "url:SUBSTR", "title:SUBSTR" or a tab ID.
// The Tab keeps naming that tab (by its ID) until it closes.
func (b *Browser) Tab(ctx context.Context, selector string) (*Tab, error) {
	br, err := b.env.Browsers.Driver(ctx)
	if err != nil {
		return nil, asError(err)
	}
	t, err := br.TabIn(ctx, b.env.Scope, selector)
	if err != nil {
		return nil, asError(err)
	}
	return &Tab{b: b, id: t.ID()}, nil
}

// call runs the tool name with args, and decodes its data into out (if
// not nil). The error is always an *Error.
func (b *Browser) call(ctx context.Context, name string, args map[string]any, out any) error {
	res, err := b.run(ctx, name, args)
	if err != nil {
		return err
	}
	if out == nil || res.Data == nil {
		return nil
	}
	raw, err := json.Marshal(res.Data)
	if err == nil {
		err = json.Unmarshal(raw, out)
	}
	if err != nil {
		return &Error{Code: string(tools.Internal), Message: fmt.Sprintf("decoding %s's result: %v", name, err), Hint: "this is a cdpkit bug"}
	}
	return nil
}

// run runs the tool name with args, leaving out the zero values (absent,
// as the tools' defaults expect), and returns its result.
func (b *Browser) run(ctx context.Context, name string, args map[string]any) (*tools.Result, error) {
	for k, v := range args {
		if v == nil || v == "" || v == false || v == 0 {
			delete(args, k)
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error()}
	}
	return b.runRaw(ctx, name, raw)
}

// runRaw runs the tool name with args, a JSON object, through the
// registry: the door, its checks and its errors.
func (b *Browser) runRaw(ctx context.Context, name string, args json.RawMessage) (*tools.Result, error) {
	t := b.tools[name]
	if t == nil {
		if !slices.ContainsFunc(tools.All(), func(t tools.Tool) bool { return t.Name == name }) {
			return nil, &Error{Code: string(tools.InvalidArgs), Message: fmt.Sprintf("no tool named %q", name),
				Hint: "cdpkit.Tools(&cdpkit.ToolOptions{Profile: \"full\"}) lists them"}
		}
		return nil, &Error{Code: string(tools.Unsupported), Message: b.backend + " cannot run " + name,
			Hint: "use Options.Browser chromium for this"}
	}
	res, err := t.Call(ctx, b.env, args)
	if err != nil {
		return nil, asError(err)
	}
	return res, nil
}
