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
	"runtime"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
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
	cfg.browser.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	d := &doctor{out: stdout}
	fmt.Fprintf(stdout, "cdpkit %s\n", buildVersion())
	if cfg.backend == tools.BackendFirefox {
		return doctorFirefox(ctx, cfg, stdout)
	}

	if cfg.browser.BrowserURL == "" && cfg.browser.WSEndpoint == "" && cfg.browser.AutoConnect == "" && cfg.browser.WebDriverURL == "" {
		if cfg.browser.ExecPath != "" {
			fmt.Fprintf(stdout, "      looked at          %s (--executable-path or CHROMIUM_PATH)\n", cfg.browser.ExecPath)
		} else {
			fmt.Fprintf(stdout, "      looked for, in order:\n")
			for _, c := range browser.SearchList(runtime.GOOS, os.Getenv) {
				fmt.Fprintf(stdout, "        %s\n", c)
			}
		}
		exe, err := browser.FindExecutable(cfg.browser.ExecPath)
		if !d.check("browser executable", exe, err) {
			return 1
		}
		dir, err := os.MkdirTemp("", "cdpkit-doctor-")
		if err == nil {
			os.Remove(dir)
		}
		d.check("temp dir writable", os.TempDir(), err)
	}

	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	start := time.Now()
	cfg.launch.fill(&cfg.browser)
	b, err := browser.Start(ctx, &cfg.browser)
	mode := "launch"
	if cfg.browser.BrowserURL != "" || cfg.browser.WSEndpoint != "" || cfg.browser.AutoConnect != "" {
		mode = "attach"
	}
	if cfg.browser.WebDriverURL != "" {
		mode = "webdriver session"
	}
	if !d.check(mode, fmt.Sprintf("in %d ms", time.Since(start).Milliseconds()), err) {
		return 1
	}
	defer b.Close()
	v, err := b.Version(ctx)
	d.check("browser version", v.Product+", protocol "+v.Protocol+", V8 "+v.JS, err)

	// Drive a page served on loopback: open, navigate, screenshot.
	srv, url, err := servePage()
	if !d.check("loopback page server", url, err) {
		return 1
	}
	defer srv.Close()
	tab, err := b.NewTab(ctx)
	if d.check("open a tab", "", err) {
		nav, err := tab.Navigate(ctx, url)
		if d.check("navigate", describeNav(nav), err) {
			shot, err := tab.Screenshot(ctx, browser.ScreenshotOptions{})
			if err == nil {
				d.check("screenshot", fmt.Sprintf("%dx%d png, %d bytes", shot.Width, shot.Height, len(shot.Data)), nil)
			} else {
				d.check("screenshot", "", err)
			}
		}
		b.CloseTab(ctx, tab)
	}
	if d.failed {
		return 1
	}
	fmt.Fprintln(stdout, "all checks passed")
	return 0
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
	var nb *browser.NoBrowserError
	if errors.As(err, &nb) && nb.Hint != "" {
		fmt.Fprintf(d.out, "      fix: %s\n", nb.Hint)
	}
	return false
}

func describeNav(n *browser.NavResult) string {
	if n == nil {
		return ""
	}
	return fmt.Sprintf("%q status %d", n.Title, n.Status)
}

// servePage serves a one-line page on a loopback port.
func servePage() (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html><title>cdpkit doctor</title><h1>cdpkit doctor</h1>")
		}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String() + "/", nil
}
