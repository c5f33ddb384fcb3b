package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/firefox"
)

// doctorFirefox is `cdpkit doctor --browser firefox`: it finds Firefox,
// launches it (or attaches through --ws-endpoint), starts a BiDi session
// and drives a loopback page: open, navigate, screenshot.
func doctorFirefox(ctx context.Context, cfg *config, stdout io.Writer) int {
	d := &doctor{out: stdout}
	o := &firefox.Options{ExecPath: cfg.browser.ExecPath, Args: cfg.browser.Args, Headful: cfg.browser.Headful,
		WSEndpoint: cfg.browser.WSEndpoint, CommandTimeout: cfg.browser.CDPTimeout, LaunchTimeout: cfg.browser.LaunchTimeout,
		Logger: cfg.browser.Logger, URLPolicy: cfg.browser.URLPolicy}
	mode := "attach"
	if o.WSEndpoint == "" {
		mode = "launch"
		exe, err := firefox.FindExec(o.ExecPath)
		if !d.check("firefox executable", exe, err) {
			return 1
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	start := time.Now()
	b, err := firefox.Launch(ctx, o)
	if !d.check(mode, fmt.Sprintf("in %d ms", time.Since(start).Milliseconds()), err) {
		return 1
	}
	defer b.Close()
	d.check("browser version", b.Version()+", WebDriver BiDi", nil)
	srv, url, served, err := servePage()
	if !d.check("loopback page server", url, err) {
		return 1
	}
	defer srv.Close()
	tab, err := b.NewTab(ctx, nil)
	if d.check("open a tab", "", err) {
		nav, err := tab.Navigate(ctx, url)
		detail := ""
		if err == nil {
			detail, err = checkNav(nav, int(served.Load()))
		}
		if d.check("navigate", detail, err) {
			shot, err := tab.Screenshot(ctx, driver.ScreenshotOptions{})
			if err == nil {
				d.check("screenshot", fmt.Sprintf("%dx%d png, %d bytes", shot.Width, shot.Height, len(shot.Data)), nil)
			} else {
				d.check("screenshot", "", err)
			}
		}
		tab.Close(ctx)
	}
	if d.failed {
		return 1
	}
	fmt.Fprintln(stdout, "all checks passed")
	return 0
}
