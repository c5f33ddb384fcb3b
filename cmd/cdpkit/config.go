package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/cli"
	"github.com/cdpkit/cdpkit/internal/mcpserver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// maxStorageStateFile bounds the file --storage-state reads, as
// load_storage_state bounds its own.
const maxStorageStateFile = 20 << 20

// config is everything the flags and environment say. The browser's
// settings are parsed straight into opts, which cdpkit.New (newApp, doctor)
// alone translates for a backend.
type config struct {
	opts cdpkit.Options
	// browserURL and wsEndpoint are --browser-url and --ws-endpoint, the
	// two ways to give opts.Endpoint.
	browserURL, wsEndpoint string
	tools                  string // --tools: core, full or a list of names

	// serve only
	listen      string
	token       string
	tokenFile   string
	printConfig string
	allowRemote bool
	isolate     bool          // --isolate-sessions: a browser context per session
	sessionIdle time.Duration // --session-timeout: an idle session ends and its tabs close
	maxSessions int           // --max-sessions: sessions open at once
	rateLimit   float64       // --rate-limit: requests per second per session
	// conns are --max-conns, --max-unauth-conns and
	// --max-conns-per-session (MaxConnsPerSession).
	conns              mcpserver.ConnLimits
	maxConnsPerSession int
	// metricsListen is --metrics-listen: where /metrics is served; "" off.
	metricsListen string
	browsers      int    // --browsers: the pool sessions are placed on (pool.go)
	maxTabs       int    // --max-tabs-per-session: 0 is no limit
	instanceID    string // --instance-id: starts every MCP session id

	logFormat string
	logLevel  string

	launch launchFlags // --headed, --user-data-dir, --viewport … (launchflags.go)

	// doctor only
	verbose bool // -v: also print where the browser was looked for

	// daemon only
	session     string
	idleTimeout time.Duration

	requireLease bool          // --require-lease: strict mode (leases.go)
	leaseTTL     time.Duration // CDPKIT_LEASE_TTL_MS; 0 means the default
}

// envHelp documents the environment variables; flags win over them.
const envHelp = `
Environment:
  CHROMIUM_PATH         browser executable (same as --executable-path)
  CDPKIT_CDP_TIMEOUT    deadline for one CDP command without its own (default 15s)
  CDPKIT_TOOL_TIMEOUT   deadline for one tool call (default 30s, at most 2m; a call's timeout_ms overrides it)
  CDPKIT_QUEUE_LIMIT    state-changing calls that may wait for one tab before BUSY_QUEUE_FULL (default 8)
  CDPKIT_IDLE_TIMEOUT   stop the browser after this long without a call (default 5m; 0 never)
  CDPKIT_ARTIFACT_DIR   the only directory tools write files to (default: the user cache dir's cdpkit/artifacts)
  CDPKIT_ALLOW_EVAL     1 enables evaluate_script (same as --allow-eval)
                        (switches take 1, true, yes or on, and 0, false, no or off; anything else is an error)
  CDPKIT_MAX_SCREENSHOT_PIXELS  largest screenshot width × height; bigger ones are downscaled (default 16777216)
  CDPKIT_MAX_IMAGE_BYTES        largest encoded screenshot; bigger ones are shrunk to fit (default 5242880)
  CDPKIT_NETWORK_BUFFER requests each tab's network log keeps (default 1000)
  CDPKIT_DOWNLOAD_MAX   largest download in bytes; bigger ones are cancelled (Firefox: removed once done) (default 104857600)
  CDPKIT_HEADED=1, CDPKIT_USER_DATA_DIR, CDPKIT_VIEWPORT, CDPKIT_DEVICE, CDPKIT_USER_AGENT,
  CDPKIT_PROXY_SERVER, CDPKIT_PROXY_BYPASS, CDPKIT_LANG, CDPKIT_TIMEZONE, CDPKIT_IGNORE_HTTPS_ERRORS=1
                        the launch options, as the flags of the same names
  CDPKIT_REQUIRE_LEASE  1 is strict mode (same as --require-lease)
  CDPKIT_LEASE_TTL_MS   ms a tab lease lives without a call before another agent may reclaim it (default 900000)
  CDPKIT_BROWSER        chromium (default) or firefox (same as --browser)
  CDPKIT_WS_ENDPOINT, CDPKIT_WEBDRIVER_URL  the same as --ws-endpoint and --webdriver-url
  FIREFOX_PATH          Firefox executable under --browser firefox (default: firefox-esr, firefox on PATH)
  OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_/_METRICS_ENDPOINT), OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME…
                        export spans (browser/<tool>) and metrics over OTLP/HTTP (http/protobuf); unset: no export
  CDPKIT_PPROF          serve Go's runtime profiles on this loopback address (mcp, serve, daemon; default off)
`

// parseConfig reads flags for a subcommand, with the environment as
// defaults. It returns flag.ErrHelp after printing help.
func parseConfig(name string, args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("cdpkit "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var env envBools
	var headers headerFlag
	fs.StringVar(&c.opts.ExecPath, "executable-path", os.Getenv("CHROMIUM_PATH"), "browser executable to launch (default: chromium, chromium-browser, google-chrome, google-chrome-stable on PATH)")
	fs.StringVar(&c.browserURL, "browser-url", "", "attach to a running browser at `http://host:port` instead of launching one")
	fs.StringVar(&c.wsEndpoint, "ws-endpoint", os.Getenv("CDPKIT_WS_ENDPOINT"), "attach to a running browser at this `ws:// or wss://` DevTools URL; a token in its query is kept out of logs; 429/503 is BROWSER_BUSY (default: CDPKIT_WS_ENDPOINT)")
	fs.Var(&headers, "ws-header", "`Name: value` header for --ws-endpoint (repeatable); values are kept out of logs")
	fs.StringVar(&c.opts.WebDriverURL, "webdriver-url", os.Getenv("CDPKIT_WEBDRIVER_URL"), "borrow the browser from a W3C WebDriver remote end at this `http://host:port` (chromedriver, Selenium Grid 4): a session is created, driven over its CDP address and deleted on exit (default: CDPKIT_WEBDRIVER_URL)")
	fs.Func("webdriver-capability", "extra WebDriver capability `key=json` for --webdriver-url's session, such as 'goog:chromeOptions={\"binary\":\"/usr/bin/chromium\"}' (repeatable)", func(s string) error {
		key, value, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(key) == "" || !json.Valid([]byte(value)) {
			return errors.New("want key=json, such as platformName=\"linux\"")
		}
		if c.opts.WebDriverCapabilities == nil {
			c.opts.WebDriverCapabilities = map[string]json.RawMessage{}
		}
		c.opts.WebDriverCapabilities[strings.TrimSpace(key)] = json.RawMessage(value)
		return nil
	})
	fs.DurationVar(&c.opts.WebDriverWait, "webdriver-wait", 0, "how long to wait for a --webdriver-url session while a Selenium Grid queues the request (its slots all busy), below the call's own limit; cdpkit then withdraws the request, answers BROWSER_BUSY, and deletes a session the Grid creates for it later (default: the call's limit)")
	fs.StringVar(&c.opts.AutoConnect, "auto-connect", "", "attach to the browser using this `user-data-dir` (reads its DevToolsActivePort)")
	fs.StringVar(&c.opts.Browser, "browser", os.Getenv("CDPKIT_BROWSER"), "browser to drive: chromium (default) or firefox, over WebDriver BiDi, with fewer tools (default: CDPKIT_BROWSER)")
	fs.StringVar(&c.tools, "tools", "core", "tools to offer: core (the agent loop, tabs, uploads, the console), devtools (core + console, network, mocks, cookies, storage state, downloads, performance traces, heap snapshots, Lighthouse, recording), vision (core + click_at, move_mouse, drag_at, scroll_at at screenshot coordinates), full (all), or a comma-separated list of names")
	if name == "serve" {
		fs.StringVar(&c.listen, "listen", "127.0.0.1:8765", "`host:port` to serve MCP over HTTP on")
		fs.StringVar(&c.token, "token", os.Getenv("CDPKIT_TOKEN"), "bearer token clients must send (default: CDPKIT_TOKEN, else a random one printed once)")
		fs.StringVar(&c.tokenFile, "token-file", os.Getenv("CDPKIT_TOKEN_FILE"), "read the bearer token from this `file`, creating it (mode 0600, random token) on first start, so host configs survive restarts")
		fs.StringVar(&c.printConfig, "print-config", "", "print a ready registration for `host` (claude, cursor or codex) with the URL and token, then exit")
		fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow --listen on a non-loopback address (needs a token; anyone who has it drives the browser)")
		fs.BoolVar(&c.isolate, "isolate-sessions", false, "give each MCP session its own browser context (separate cookies and storage) and artifact folder (sessions/<id>/), not only its own tabs")
		fs.DurationVar(&c.sessionIdle, "session-timeout", 30*time.Minute, "end an MCP session, closing its tabs, after this long without a request (0: never)")
		fs.IntVar(&c.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "MCP sessions open at once; a new one over this is refused with LIMIT_REACHED (0: no limit)")
		fs.Float64Var(&c.rateLimit, "rate-limit", mcpserver.DefaultRateLimit, "requests per second one MCP session (and the token outside sessions) may make on average (bursts of 200); more get HTTP 429 with LIMIT_REACHED (0: no limit)")
		fs.IntVar(&c.conns.MaxConns, "max-conns", mcpserver.DefaultMaxConns, "connections open at once that have sent the token, whatever address they come from; one more gets HTTP 503 with LIMIT_REACHED")
		fs.IntVar(&c.maxConnsPerSession, "max-conns-per-session", mcpserver.DefaultMaxConnsPerSession, "requests one MCP session may have in progress at once, its event stream included; one more is refused with LIMIT_REACHED (0: no limit)")
		fs.IntVar(&c.conns.MaxUnauthConns, "max-unauth-conns", mcpserver.DefaultMaxUnauthConns, "connections open at once that have not sent the token (yet); one more closes the oldest of them, and none stays past 10s")
		fs.StringVar(&c.metricsListen, "metrics-listen", "", "serve Prometheus metrics at http://`host:port`/metrics (loopback unless --allow-remote, which also makes scrapes send the bearer token); off by default")
		fs.IntVar(&c.browsers, "browsers", 1, "browsers to run (each its own process, or connection to --ws-endpoint/--browser-url); each new MCP session goes to the one with the fewest sessions, and a browser that dies resets only its sessions")
		fs.IntVar(&c.maxTabs, "max-tabs-per-session", 0, "tabs one MCP session may have open at once, those its pages open included; opening one more is refused with LIMIT_REACHED, and a tab a page opens past it is closed and reported (0: no limit)")
		fs.StringVar(&c.instanceID, "instance-id", os.Getenv("CDPKIT_INSTANCE_ID"), "`id` (letters, digits, '-') that starts every MCP session id as ID.RANDOM, so a reverse proxy in front of several servers routes by the Mcp-Session-Id header (default: CDPKIT_INSTANCE_ID, else random)")
	}
	if name == "daemon" {
		fs.StringVar(&c.session, "session", cli.DefaultSession, "session `name` whose socket to serve")
		fs.DurationVar(&c.idleTimeout, "idle-timeout", cli.DefaultIdleTimeout, "exit after this long without calls")
	}
	fs.StringVar(&c.logFormat, "log-format", "text", "log format on stderr: text or json")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.BoolVar(&c.opts.AllowEval, "allow-eval", env.get("CDPKIT_ALLOW_EVAL"), "enable evaluate_script, which runs the agent's JavaScript in pages")
	fs.BoolVar(&c.opts.ShowSecrets, "show-secrets", false, "show credential headers (Authorization, Cookie, Set-Cookie, *token*…) in network tool results instead of <redacted>")
	fs.Func("storage-state", "load this storage state `file` (cookies + localStorage, Playwright storageState JSON, as save_storage_state writes) into every new browser context", func(path string) error {
		data, err := policy.ReadRegular(context.Background(), path, maxStorageStateFile)
		if err != nil {
			return err
		}
		if !json.Valid(data) {
			return errors.New("not JSON: want a storage state as save_storage_state writes it")
		}
		c.opts.StorageState = data
		return nil
	})
	fs.Func("dialogs", "JavaScript dialogs cdpkit answers by itself: `report` (the default: accepts alerts; confirm and prompt wait for handle_dialog), accept or dismiss", func(s string) error {
		switch p := cdpkit.DialogPolicy(s); p {
		case cdpkit.DialogsReport, cdpkit.DialogsAccept, cdpkit.DialogsDismiss:
			c.opts.Dialogs = p
			return nil
		}
		return errors.New("want report, accept or dismiss")
	})
	fs.Func("upload-root", "`dir` whose files upload_file may give a page, besides the artifact dir (repeatable)", func(dir string) error {
		if dir == "" {
			return errors.New("want a directory")
		}
		c.opts.UploadRoots = append(c.opts.UploadRoots, dir)
		return nil
	})
	fs.BoolVar(&c.opts.AllowPrivateNetworks, "allow-private-networks", false, "let pages load from private and special networks (10/8, 172.16/12, 192.168/16, 169.254/16 incl. cloud metadata, 100.64/10, fc00::/7, 0.0.0.0/8, multicast), by address or by a name resolving to one")
	fs.BoolVar(&c.opts.BlockLoopback, "block-loopback", false, "refuse loopback (127.0.0.0/8, ::1, localhost), which is allowed by default")
	fs.Func("allowed-origins", "comma-separated `origins` that are the only ones pages may load from: https://example.com, a host (any scheme and port) or *.example.com; a listed origin may be private", func(s string) error {
		var err error
		c.opts.AllowedOrigins, err = policy.ParseOrigins(s)
		return err
	})
	fs.Func("blocked-origins", "comma-separated `origins` pages may not load from, written as for --allowed-origins", func(s string) error {
		var err error
		c.opts.BlockedOrigins, err = policy.ParseOrigins(s)
		return err
	})
	fs.Func("allow-file-urls", "let pages open file:// URLs under `dir` (repeatable; symlinks and .. resolved; the guard judges every file: request); without it file:// is refused", func(dir string) error {
		abs, err := filepath.Abs(dir)
		if err != nil || dir == "" {
			return errors.New("want a directory")
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		c.opts.AllowFileURLs = append(c.opts.AllowFileURLs, abs)
		return nil
	})
	fs.BoolVar(&c.requireLease, "require-lease", env.get("CDPKIT_REQUIRE_LEASE"), "strict mode: a call on a tab nobody leased leases it to the caller (an auto lease), new_page leases its tab, and list_pages/list_leases close tabs whose leaseholder died")
	fs.Func("chrome-arg", "extra `--switch` for a launched browser (repeatable); switches that run other programs, load extensions or open the DevTools endpoint are refused", func(s string) error {
		if err := policy.CheckChromeArg(s); err != nil {
			return err
		}
		c.opts.Args = append(c.opts.Args, s)
		return nil
	})
	c.launch.register(fs, &env)
	if name == "doctor" {
		fs.BoolVar(&c.verbose, "v", false, "also print where the browser was looked for (printed anyway when none is found)")
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: cdpkit %s [flags]\n\nFlags:\n", name)
		if name == "doctor" {
			printDoctorDefaults(fs, stderr)
			return
		}
		fs.PrintDefaults()
		fmt.Fprint(stderr, envHelp)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := env.err(); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if name == "doctor" {
		if err := checkDoctorFlags(fs); err != nil {
			return nil, err
		}
	}
	if err := c.launch.apply(&c.opts); err != nil {
		return nil, err
	}
	if err := c.pickBackend(fs); err != nil {
		return nil, err
	}
	if c.maxSessions < 0 || c.rateLimit < 0 || c.maxConnsPerSession < 0 {
		return nil, errors.New("--max-sessions, --max-conns-per-session and --rate-limit are 0 (no limit) or more")
	}
	if name == "serve" && (c.conns.MaxConns < 1 || c.conns.MaxUnauthConns < 1) {
		return nil, errors.New("--max-conns and --max-unauth-conns are 1 or more")
	}
	if name == "serve" {
		if err := c.checkPool(); err != nil {
			return nil, err
		}
	}
	n := 0
	for _, s := range []string{c.browserURL, c.wsEndpoint, c.opts.AutoConnect, c.opts.WebDriverURL} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		return nil, errors.New("give only one of --browser-url, --ws-endpoint, --auto-connect and --webdriver-url")
	}
	if c.opts.WebDriverCapabilities != nil && c.opts.WebDriverURL == "" {
		return nil, errors.New("--webdriver-capability needs --webdriver-url")
	}
	if c.opts.WebDriverWait != 0 && (c.opts.WebDriverURL == "" || c.opts.WebDriverWait < 0) {
		return nil, errors.New("--webdriver-wait needs --webdriver-url and a positive duration, such as 20s")
	}
	if len(headers) > 0 {
		if c.wsEndpoint == "" {
			return nil, errors.New("--ws-header needs --ws-endpoint")
		}
		c.opts.WSHeaders = http.Header(headers)
	}
	c.opts.Endpoint = cmp.Or(c.wsEndpoint, c.browserURL)
	var err error
	if c.opts.CDPTimeout, err = envDuration("CDPKIT_CDP_TIMEOUT"); err != nil {
		return nil, err
	}
	if c.opts.Timeout, err = envDuration("CDPKIT_TOOL_TIMEOUT"); err != nil {
		return nil, err
	}
	if c.opts.Timeout == 0 {
		c.opts.Timeout = tools.DefaultTimeout
	}
	if c.opts.Timeout > tools.MaxTimeout {
		return nil, fmt.Errorf("CDPKIT_TOOL_TIMEOUT=%v: at most %v", c.opts.Timeout, tools.MaxTimeout)
	}
	if c.opts.QueueLimit, err = envInt("CDPKIT_QUEUE_LIMIT"); err != nil {
		return nil, err
	}
	c.opts.IdleTimeout = defaultIdleTimeout
	if v := os.Getenv("CDPKIT_IDLE_TIMEOUT"); v == "0" {
		c.opts.IdleTimeout = 0
	} else if d, err := envDuration("CDPKIT_IDLE_TIMEOUT"); err != nil {
		return nil, err
	} else if d > 0 {
		c.opts.IdleTimeout = d
	}
	if c.opts.MaxScreenshotPixels, err = envInt("CDPKIT_MAX_SCREENSHOT_PIXELS"); err != nil {
		return nil, err
	}
	if c.opts.MaxImageBytes, err = envInt("CDPKIT_MAX_IMAGE_BYTES"); err != nil {
		return nil, err
	}
	max, err := envInt("CDPKIT_DOWNLOAD_MAX")
	if err != nil {
		return nil, err
	}
	c.opts.DownloadMax = int64(max)
	if _, err := envInt("CDPKIT_NETWORK_BUFFER"); err != nil {
		return nil, err
	}
	ttl, err := envInt("CDPKIT_LEASE_TTL_MS")
	if err != nil {
		return nil, err
	}
	c.leaseTTL = time.Duration(ttl) * time.Millisecond
	c.opts.ArtifactDir = cmp.Or(os.Getenv("CDPKIT_ARTIFACT_DIR"), policy.DefaultArtifactDir())
	return c, nil
}

// defaultIdleTimeout is how long the browser may sit unused before it is
// stopped; CDPKIT_IDLE_TIMEOUT changes it.
const defaultIdleTimeout = 5 * time.Minute

// envDuration reads a duration such as "15s" from the environment; unset
// is zero.
func envDuration(name string) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 15s", name, v)
	}
	return d, nil
}

// envInt reads a positive integer from the environment; unset is zero.
func envInt(name string) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive integer", name, v)
	}
	return n, nil
}

// logger builds the stderr logger the flags ask for.
func (c *config) logger(stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", c.logLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", c.logFormat)
}

// headerFlag collects repeated "Name: value" flags.
type headerFlag http.Header

func (h *headerFlag) String() string { return "" }

func (h *headerFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want Name: value, got %q", s)
	}
	if *h == nil {
		*h = headerFlag{}
	}
	http.Header(*h).Add(strings.TrimSpace(name), strings.TrimSpace(value))
	return nil
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
