package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// runDoctor checks, step by step, that cdpkit can find, start and drive a
// browser, and prints the command that fixes each problem. It exits 1 when
// any check fails.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig("doctor", args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit doctor: %v\n", err)
		return 2
	}
	cfg.opts.Logger = slog.New(noCallRecords{slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})})
	cfg.opts.ArtifactDir = "" // a temporary one, removed on Close: the screenshot is not kept
	d := &doctor{out: stdout}
	fmt.Fprintf(stdout, "cdpkit %s\n", buildVersion())
	return d.run(ctx, cfg)
}

// run checks the browser cfg.opts names: found (when launched), started,
// and driven on a loopback page (open, navigate, screenshot), all through
// the public Go API, as the servers start theirs.
func (d *doctor) run(ctx context.Context, cfg *config) int {
	o := &cfg.opts
	firefox := o.Browser == tools.BackendFirefox
	mode := "launch"
	switch {
	case o.Endpoint != "" || o.AutoConnect != "":
		mode = "attach"
	case o.WebDriverURL != "":
		mode = "webdriver session"
	}
	if mode == "launch" {
		exe, searched, err := cdpkit.Executable(o)
		name := "browser executable"
		if firefox {
			name = "firefox executable"
		}
		ok := d.check(name, exe, err)
		if !firefox && (!ok || cfg.verbose) {
			// Where it looked matters when nothing was found (or asked).
			if o.ExecPath != "" {
				fmt.Fprintf(d.out, "      looked at          %s (--executable-path or CHROMIUM_PATH)\n", o.ExecPath)
			} else {
				fmt.Fprintf(d.out, "      looked for, in order:\n")
				for _, c := range searched {
					fmt.Fprintf(d.out, "        %s\n", c)
				}
			}
		}
		if !ok {
			return 1
		}
		if !firefox {
			dir, err := os.MkdirTemp("", "cdpkit-doctor-")
			if err == nil {
				os.Remove(dir)
			}
			d.check("temp dir writable", os.TempDir(), err)
		}
	}

	limit := 60 * time.Second
	if firefox {
		limit = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	b, err := cdpkit.New(o)
	if err == nil {
		_, err = b.Tabs(ctx) // starts (or reaches) the browser
		defer b.Close()
	}
	if !d.check(mode, fmt.Sprintf("in %d ms", time.Since(start).Milliseconds()), err) {
		return 1
	}
	v, err := b.Version(ctx)
	d.check("browser version", v, err)

	// Drive a page served on loopback: open, navigate, screenshot.
	srv, url, served, err := servePage()
	if !d.check("loopback page server", url, err) {
		return 1
	}
	defer srv.Close()
	tab, err := b.NewTab(ctx, "")
	if d.check("open a tab", "", err) {
		nav, err := tab.Navigate(ctx, url)
		detail := ""
		if err == nil {
			detail, err = checkNav(nav, int(served.Load()))
		}
		if d.check("navigate", detail, err) {
			shot, err := tab.Screenshot(ctx, nil)
			if err == nil {
				d.check("screenshot", fmt.Sprintf("%dx%d %s, %d bytes", shot.Width, shot.Height, shot.Format, len(shot.Data)), nil)
			} else {
				d.check("screenshot", "", err)
			}
		}
		tab.Close(ctx)
	}
	if d.failed {
		return 1
	}
	fmt.Fprintln(d.out, "all checks passed")
	return 0
}

// noCallRecords drops the door's record of each tool call from doctor's
// log: doctor prints each check's outcome itself.
type noCallRecords struct{ slog.Handler }

func (h noCallRecords) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "tool call" {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

type doctor struct {
	out    io.Writer
	failed bool
}

// check prints one result line; on failure it prints the fix when known.
func (d *doctor) check(what, detail string, err error) bool {
	if err == nil {
		fmt.Fprintf(d.out, "ok    %-22s %s\n", what, detail)
		return true
	}
	d.failed = true
	fmt.Fprintf(d.out, "FAIL  %-22s %v\n", what, err)
	var e *cdpkit.Error
	// A hint that says to run doctor is the tools' fallback: no fix.
	if errors.As(err, &e) && e.Hint != "" && !strings.Contains(e.Hint, "cdpkit doctor") {
		fmt.Fprintf(d.out, "      fix: %s\n", e.Hint)
	}
	return false
}

// pageTitle is the title of the page servePage serves.
const pageTitle = "cdpkit doctor"

// checkNav judges a navigation to servePage's page: the page's title must
// be its own and its server must have answered it (served requests). A
// backend that reports no HTTP status (Firefox over BiDi) is judged by
// what the server saw; one that reports a status must report 200.
func checkNav(n *cdpkit.Page, served int) (string, error) {
	switch {
	case n == nil:
		return "", errors.New("no navigation result")
	case n.Status != 0 && n.Status != http.StatusOK:
		return "", fmt.Errorf("%q status %d, want 200", n.Title, n.Status)
	case n.Title != pageTitle:
		return "", fmt.Errorf("loaded %q, not the test page", n.Title)
	case served == 0:
		return "", errors.New("the browser never asked the page server for the page")
	case n.Status == 0:
		return fmt.Sprintf("%q served with status 200", n.Title), nil
	}
	return fmt.Sprintf("%q status %d", n.Title, n.Status), nil
}

// servePage serves a one-line page on a loopback port; served counts the
// page's requests answered.
func servePage() (*http.Server, string, *atomic.Int64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	served := &atomic.Int64{}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r) // favicon.ico
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html><title>"+pageTitle+"</title><h1>"+pageTitle+"</h1>")
			served.Add(1)
		}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String() + "/", served, nil
}

// doctorFlags are the flags that decide which browser doctor finds and
// how it starts; the servers' other flags do not apply to it.
var doctorFlags = map[string]bool{
	"executable-path": true, "browser": true, "browser-url": true, "ws-endpoint": true, "ws-header": true,
	"webdriver-url": true, "webdriver-capability": true, "auto-connect": true, "chrome-arg": true,
	"headed": true, "user-data-dir": true, "viewport": true, "device": true, "user-agent": true,
	"proxy-server": true, "proxy-bypass": true, "lang": true, "timezone": true, "ignore-https-errors": true,
	"v": true,
}

// doctorEnvHelp documents the environment variables doctor reads.
const doctorEnvHelp = `
Environment:
  CHROMIUM_PATH         browser executable (same as --executable-path)
  FIREFOX_PATH          Firefox executable under --browser firefox (default: firefox-esr, firefox on PATH)
  CDPKIT_BROWSER, CDPKIT_WS_ENDPOINT, CDPKIT_WEBDRIVER_URL  the same as --browser, --ws-endpoint, --webdriver-url
  CDPKIT_HEADED=1, CDPKIT_USER_DATA_DIR, CDPKIT_VIEWPORT, CDPKIT_DEVICE, CDPKIT_USER_AGENT,
  CDPKIT_PROXY_SERVER, CDPKIT_PROXY_BYPASS, CDPKIT_LANG, CDPKIT_TIMEZONE, CDPKIT_IGNORE_HTTPS_ERRORS=1
                        the launch options, as the flags of the same names
  CDPKIT_CDP_TIMEOUT    deadline for one CDP command without its own (default 15s)
`

// printDoctorDefaults prints doctor's flags alone, as flag.PrintDefaults
// would.
func printDoctorDefaults(fs *flag.FlagSet, w io.Writer) {
	only := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	only.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if doctorFlags[f.Name] {
			only.Var(f.Value, f.Name, f.Usage)
		}
	})
	only.PrintDefaults()
	fmt.Fprint(w, doctorEnvHelp)
}

// checkDoctorFlags refuses a flag given to doctor that does not apply to it.
func checkDoctorFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !doctorFlags[f.Name] {
			err = fmt.Errorf("--%s does not apply to doctor (run 'cdpkit doctor -h')", f.Name)
		}
	})
	return err
}
