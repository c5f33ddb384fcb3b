package cdpkit

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/firefox"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// newManager is the one place Options become a backend's options
// (Chromium's browser.Options, and Firefox's firefox.Options under it):
// cdpkit's commands parse their flags into Options and come through New,
// as Go programs do. It returns the manager that starts the browser on
// first use; the error is an *Error.
func newManager(o *Options, backend string, log *slog.Logger, urls *policy.Policy, downloadDir string) (*driver.Manager, error) {
	bo := browser.Options{ExecPath: o.ExecPath, Args: o.Args, Headful: o.Headful, WSHeaders: o.WSHeaders, AutoConnect: o.AutoConnect,
		CDPTimeout: o.CDPTimeout, LaunchTimeout: o.LaunchTimeout, Logger: log, URLPolicy: urls,
		DownloadDir: downloadDir, DownloadMax: o.DownloadMax}
	if err := launchOptions(o, &bo); err != nil {
		return nil, err
	}
	if len(o.StorageState) > 0 {
		st, err := driver.ParseStorageState(o.StorageState)
		if err != nil {
			return nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error(), Hint: "give a storage state as save_storage_state writes it"}
		}
		bo.StorageState = st
	}
	var be driver.Backend
	if backend == tools.BackendFirefox {
		be = firefox.NewBackend(&firefox.Options{ExecPath: o.ExecPath, Args: o.Args, Headful: o.Headful,
			WSEndpoint: bo.WSEndpoint, CommandTimeout: o.CDPTimeout, LaunchTimeout: o.LaunchTimeout, Logger: log, URLPolicy: urls,
			DownloadDir: downloadDir, DownloadMax: o.DownloadMax})
	} else {
		be = browser.NewManager(&bo).Backend()
	}
	return driver.NewManager(be, &driver.ManagerOptions{IdleTimeout: o.IdleTimeout, Logger: log}), nil
}

// launchOptions copies o's endpoint and launch options into bo and checks
// them; the error is an *Error.
func launchOptions(o *Options, bo *browser.Options) error {
	if o.WebDriverURL != "" && (o.Endpoint != "" || o.AutoConnect != "") {
		return &Error{Code: string(tools.InvalidArgs), Message: "WebDriverURL with Endpoint or AutoConnect", Hint: "give one way to the browser"}
	}
	bo.WebDriverURL, bo.WebDriverCaps, bo.WebDriverWait = o.WebDriverURL, o.WebDriverCapabilities, o.WebDriverWait
	switch {
	case strings.HasPrefix(o.Endpoint, "ws://"), strings.HasPrefix(o.Endpoint, "wss://"):
		bo.WSEndpoint = o.Endpoint
	case o.Endpoint != "":
		bo.BrowserURL = o.Endpoint
	}
	bo.UserAgent, bo.ProxyServer, bo.ProxyBypass = o.UserAgent, o.ProxyServer, o.ProxyBypass
	bo.Lang, bo.Timezone, bo.IgnoreHTTPSErrors = o.Lang, o.Timezone, o.IgnoreHTTPSErrors
	if o.UserDataDir != "" {
		dir, err := filepath.Abs(o.UserDataDir)
		if err != nil {
			return &Error{Code: string(tools.InvalidArgs), Message: "user-data-dir: " + err.Error()}
		}
		bo.UserDataDir = dir
	}
	switch {
	case o.Device != "" && (o.ViewportWidth != 0 || o.ViewportHeight != 0):
		return &Error{Code: string(tools.InvalidArgs), Message: "give a viewport or a device, not both", Hint: "a device preset sets the viewport"}
	case o.Device != "":
		v, ok := driver.ViewportPreset(o.Device)
		if !ok {
			return &Error{Code: string(tools.InvalidArgs), Message: fmt.Sprintf("unknown device %q", o.Device), Hint: "use mobile, tablet or desktop"}
		}
		bo.Viewport = &v
	case o.ViewportWidth != 0 || o.ViewportHeight != 0:
		bo.Viewport = &driver.Viewport{Width: o.ViewportWidth, Height: o.ViewportHeight, DeviceScaleFactor: 1}
	}
	if err := bo.CheckLaunchOptions(); err != nil {
		e := asError(err).(*Error)
		if e.Code == string(tools.InvalidArgs) {
			e.Message = strings.TrimPrefix(e.Message, driver.ErrInvalidArgument.Error()+": ")
			e.Hint = "see the launch options in cdpkit's docs/flags.md"
		}
		return e
	}
	return nil
}
