package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/wsconn"
)

// attach connects to a running browser named by o.BrowserURL, o.WSEndpoint
// or o.AutoConnect, or borrowed through a WebDriver session at
// o.WebDriverURL (returned, to be released on close), and returns the
// websocket endpoint it dialled. The context bounds discovery, session
// creation and the handshake. Errors never carry the endpoint's token.
func attach(ctx context.Context, o *Options) (*cdp.Conn, string, *wdHold, error) {
	var hold *wdHold
	var endpoint string
	var err error
	if o.WebDriverURL != "" {
		hold, endpoint, err = startWebDriver(ctx, o)
	} else {
		endpoint, err = wsEndpoint(ctx, o)
	}
	if err != nil {
		return nil, "", nil, err
	}
	fail := func(err error) (*cdp.Conn, string, *wdHold, error) {
		if hold != nil {
			hold.release(o.logger())
		}
		return nil, "", nil, err
	}
	safe := policy.RedactEndpoint(endpoint)
	t, err := cdp.DialWebSocket(ctx, endpoint, o.WSHeaders)
	var he *wsconn.HandshakeError
	if errors.As(err, &he) {
		return fail(handshakeError(safe, he.Status, he.RetryAfter, len(o.WSHeaders) > 0))
	}
	if err != nil {
		return fail(&driver.NoBrowserError{Reason: err.Error(), Hint: "check that the browser is running with remote debugging enabled"})
	}
	conn := cdp.NewConn(t, &cdp.Options{DefaultTimeout: o.CDPTimeout, Logger: o.logger()})
	if _, err := browserVersion(ctx, conn); err != nil {
		conn.Close()
		return fail(&driver.NoBrowserError{Reason: "browser at " + safe + " did not answer: " + err.Error(), Hint: "check the endpoint"})
	}
	return conn, endpoint, hold, nil
}

func wsEndpoint(ctx context.Context, o *Options) (string, error) {
	switch {
	case o.WSEndpoint != "":
		return o.WSEndpoint, nil
	case o.BrowserURL != "":
		return versionEndpoint(ctx, o.BrowserURL)
	default:
		return activePortEndpoint(o.AutoConnect)
	}
}

// versionEndpoint asks http://host:port/json/version for the browser's
// websocket URL.
func versionEndpoint(ctx context.Context, browserURL string) (string, error) {
	u, err := url.Parse(strings.TrimRight(browserURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", &driver.NoBrowserError{Reason: fmt.Sprintf("--browser-url %q is not an http://host:port URL", browserURL), Hint: "use e.g. --browser-url http://127.0.0.1:9222"}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String()+"/json/version", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", &driver.NoBrowserError{Reason: fmt.Sprintf("no browser answers at %s: %v", u.Host, err), Hint: "start Chrome with --remote-debugging-port, or check the address"}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", &driver.NoBrowserError{Reason: fmt.Sprintf("%s/json/version answered %s", u.Host, resp.Status), Hint: "check that this is a DevTools endpoint"}
	}
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.WebSocketDebuggerURL == "" {
		return "", &driver.NoBrowserError{Reason: u.Host + "/json/version has no webSocketDebuggerUrl", Hint: "check that this is a DevTools endpoint"}
	}
	return v.WebSocketDebuggerURL, nil
}

// activePortEndpoint reads the DevToolsActivePort file that Chrome writes
// into its user-data-dir when remote debugging is on: the port on line 1,
// the browser's websocket path on line 2.
func activePortEndpoint(userDataDir string) (string, error) {
	b, err := policy.ReadRegular(context.Background(), filepath.Join(userDataDir, "DevToolsActivePort"), 4096)
	if err != nil {
		return "", &driver.NoBrowserError{
			Reason: fmt.Sprintf("no DevToolsActivePort in %s", userDataDir),
			Hint:   "enable remote debugging in that browser (chrome://inspect/#remote-debugging, or start it with --remote-debugging-port=0)",
		}
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 {
		return "", &driver.NoBrowserError{Reason: "DevToolsActivePort is malformed", Hint: "restart the browser"}
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || port <= 0 || port > 65535 {
		return "", &driver.NoBrowserError{Reason: "DevToolsActivePort has no valid port", Hint: "restart the browser"}
	}
	path := strings.TrimSpace(lines[1])
	if !strings.HasPrefix(path, "/devtools/browser/") {
		return "", &driver.NoBrowserError{Reason: "DevToolsActivePort has no browser path", Hint: "restart the browser"}
	}
	return "ws://127.0.0.1:" + strconv.Itoa(port) + path, nil
}
