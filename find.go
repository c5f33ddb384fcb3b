package cdpkit

import (
	"context"
	"os"
	"runtime"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/firefox"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// Executable returns the browser executable that New would launch for o
// (nil means defaults): o.ExecPath when set, else the first of the usual
// places and PATH that exists; and, for Chromium without ExecPath, the
// places it looks, in order. Without a browser it fails with NO_BROWSER,
// whose hint says how to get one. It starts nothing.
func Executable(o *Options) (path string, searched []string, err error) {
	if o == nil {
		o = &Options{}
	}
	backend, err := tools.ParseBackend(o.Browser)
	if err != nil {
		return "", nil, &Error{Code: string(tools.InvalidArgs), Message: err.Error(), Hint: "use chromium or firefox"}
	}
	if backend == tools.BackendFirefox {
		path, err = firefox.FindExec(o.ExecPath)
		return path, nil, asError(err)
	}
	if o.ExecPath == "" {
		searched = browser.SearchList(runtime.GOOS, os.Getenv)
	}
	path, err = browser.FindExecutable(o.ExecPath)
	return path, searched, asError(err)
}

// Version describes the browser b drives, such as "Chrome/130.0…,
// protocol 1.3, V8 13.0…" or "128.3.0, WebDriver BiDi", starting it if
// it is not running. ctx bounds the call.
func (b *Browser) Version(ctx context.Context) (string, error) {
	if b.backend == tools.BackendChromium {
		br, err := browser.ManagerOf(b.env.Browsers.Backend()).Browser(ctx)
		if err != nil {
			return "", asError(err)
		}
		v, err := br.Version(ctx)
		if err != nil {
			return "", asError(err)
		}
		return v.Product + ", protocol " + v.Protocol + ", V8 " + v.JS, nil
	}
	d, err := b.env.Browsers.Driver(ctx)
	if err != nil {
		return "", asError(err)
	}
	if v, ok := d.(interface{ Version() string }); ok {
		return v.Version() + ", WebDriver BiDi", nil
	}
	return "", &Error{Code: string(tools.Unsupported), Message: b.backend + " does not say its version"}
}
