package main

import (
	"errors"
	"flag"
	"os"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// pickBackend checks --browser (or CDPKIT_BROWSER; the flag wins) and, for
// Firefox, takes its executable from FIREFOX_PATH unless
// --executable-path was given: CHROMIUM_PATH names a Chromium.
func (c *config) pickBackend(fs *flag.FlagSet) error {
	b, err := tools.ParseBackend(c.opts.Browser)
	if err != nil {
		return errors.New("--browser: " + err.Error())
	}
	c.opts.Browser = b
	if b != tools.BackendFirefox {
		return nil
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "executable-path" })
	if !explicit {
		c.opts.ExecPath = os.Getenv("FIREFOX_PATH")
	}
	if c.browserURL != "" || c.opts.AutoConnect != "" {
		return errors.New("--browser firefox attaches only through --ws-endpoint (its ws:// WebDriver BiDi address)")
	}
	return nil
}
