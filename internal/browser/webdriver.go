package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/webdriver"
)

// wdHold is the WebDriver session a Browser was borrowed through
// (Options.WebDriverURL): recorded in the ledger while held, pinged to
// keep it alive, deleted on Close.
type wdHold struct {
	session *webdriver.Session
	ledger  webdriver.Ledger
	stop    func() // stops the keep-alive; nil until it runs
}

// wdDelete bounds deleting a session on close, and the wait at exit for
// session requests cdpkit withdrew (webdriver.Drain).
const wdDelete = 10 * time.Second

// wdOrphans bounds looking for, and deleting, the sessions of killed
// cdpkits before a session is requested; wdCapacity bounds asking a Grid
// how busy it is after a withdrawn request.
const (
	wdOrphans  = 5 * time.Second
	wdCapacity = 3 * time.Second
)

// release stops the keep-alive, deletes the session and forgets it. The
// delete has its own deadline, so a Close after the caller's context
// ended still frees the remote browser.
func (h *wdHold) release(log interface {
	Warn(msg string, args ...any)
}) error {
	if h.stop != nil {
		h.stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), wdDelete)
	defer cancel()
	if err := h.session.Delete(ctx); err != nil {
		log.Warn("deleting the WebDriver session", "session", h.session.ID, "err", err)
		return fmt.Errorf("browser: deleting WebDriver session %s: %w", h.session.ID, err)
	}
	if err := h.ledger.Remove(h.session); err != nil {
		log.Warn("forgetting the WebDriver session", "err", err)
	}
	return nil
}

// ledger returns where WebDriver sessions are recorded.
func (o *Options) ledger() webdriver.Ledger {
	if o.WebDriverLedger != "" {
		return webdriver.Ledger{Dir: o.WebDriverLedger, Credentials: o.WebDriverURL}
	}
	dir, err := webdriver.DefaultLedgerDir()
	if err != nil {
		return webdriver.Ledger{}
	}
	return webdriver.Ledger{Dir: dir, Credentials: o.WebDriverURL}
}

// webdriverCaps are the capabilities cdpkit asks for: a headless Chromium
// with the switches a launch would give it (quiet, no sandbox when this
// machine needs none, the launch options), prompts left to cdpkit, then
// o.WebDriverCaps on top. A capability given there replaces cdpkit's,
// except goog:chromeOptions, whose fields are merged (args appended).
func webdriverCaps(o *Options) (map[string]json.RawMessage, error) {
	args := []string{}
	if !o.Headful {
		args = append(args, "--headless")
	}
	if needsNoSandbox() {
		args = append(args, "--no-sandbox")
	}
	args = append(args, quietFlags...)
	args = append(args, o.launchFlags()...)
	args = append(args, o.Args...)
	chrome := map[string]json.RawMessage{}
	chrome["args"], _ = json.Marshal(args)
	caps := map[string]json.RawMessage{
		"browserName": json.RawMessage(`"chrome"`),
		// cdpkit answers dialogs itself, over CDP.
		"unhandledPromptBehavior": json.RawMessage(`"ignore"`),
	}
	for k, v := range o.WebDriverCaps {
		if k != "goog:chromeOptions" {
			caps[k] = v
			continue
		}
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(v, &extra); err != nil {
			return nil, fmt.Errorf("%w: goog:chromeOptions must be a JSON object", driver.ErrInvalidArgument)
		}
		for ek, ev := range extra {
			if ek == "args" {
				var more []string
				if err := json.Unmarshal(ev, &more); err != nil {
					return nil, fmt.Errorf("%w: goog:chromeOptions.args must be a list of strings", driver.ErrInvalidArgument)
				}
				chrome["args"], _ = json.Marshal(append(args, more...))
				continue
			}
			chrome[ek] = ev
		}
	}
	caps["goog:chromeOptions"], _ = json.Marshal(chrome)
	return caps, nil
}

// startWebDriver creates a WebDriver session at o.WebDriverURL and returns
// it with its browser's DevTools websocket. ctx bounds the requests. On
// failure no session is left behind, as far as the remote end answers.
func startWebDriver(ctx context.Context, o *Options) (*wdHold, string, error) {
	safe := policy.RedactEndpoint(o.WebDriverURL)
	c, err := webdriver.NewClient(o.WebDriverURL, nil)
	if err != nil {
		return nil, "", &driver.NoBrowserError{Reason: err.Error(), Hint: "give --webdriver-url as http://host:port, such as http://127.0.0.1:9515 or http://grid:4444"}
	}
	caps, err := webdriverCaps(o)
	if err != nil {
		return nil, "", err
	}
	c.Logger = o.logger()
	// A session whose cdpkit was killed holds a slot we may need.
	rctx, cancel := context.WithTimeout(ctx, wdOrphans)
	c.ReapOrphans(rctx, o.logger())
	cancel()
	wctx := ctx
	if o.WebDriverWait > 0 {
		wctx, cancel = context.WithTimeout(ctx, o.WebDriverWait)
		defer cancel()
	}
	start := time.Now()
	s, err := c.NewSession(wctx, caps)
	if err != nil {
		return nil, "", webdriverError(c, safe, o.WebDriverURL, time.Since(start), err)
	}
	h := &wdHold{session: s, ledger: o.ledger()}
	if err := h.ledger.Add(s); err != nil {
		o.logger().Warn("recording the WebDriver session; a kill -9 of cdpkit would leave it", "err", err)
	}
	o.logger().Info("created a WebDriver session", "url", safe, "session", s.ID)
	endpoint := s.CDP
	if endpoint == "" {
		if endpoint, err = versionEndpoint(ctx, "http://"+s.DebuggerAddress); err != nil {
			h.release(o.logger())
			return nil, "", err
		}
	}
	return h, endpoint, nil
}

// webdriverError maps a failed session creation after waited: a busy
// remote end, or a request queued until cdpkit withdrew it or the Grid
// timed it out, is BusyError (with the Grid's capacity, asked of c); a
// refused login, no node for the capabilities and any other answer are
// NoBrowserError with a hint of their own.
func webdriverError(c *webdriver.Client, safe, raw string, waited time.Duration, err error) error {
	var we *webdriver.Error
	switch {
	case errors.Is(err, webdriver.ErrWithdrawn) || errors.As(err, &we) && we.QueueTimeout():
		be := &driver.BusyError{Endpoint: safe, Waited: waited}
		ctx, cancel := context.WithTimeout(context.Background(), wdCapacity)
		defer cancel()
		be.InUse, be.Slots, _ = c.Capacity(ctx)
		return be
	case errors.As(err, &we) && we.Busy():
		return &driver.BusyError{Endpoint: safe, Status: we.Status, RetryAfter: parseRetryAfter(we.RetryAfter, time.Now())}
	case errors.As(err, &we) && (we.Status == http.StatusUnauthorized || we.Status == http.StatusForbidden):
		hint := "the WebDriver remote end wants a login: give it in the URL, as --webdriver-url http://USER:PASSWORD@host:4444 (or CDPKIT_WEBDRIVER_URL, which keeps it out of the process list)"
		if u, perr := url.Parse(raw); perr == nil && u.User != nil {
			hint = "the WebDriver remote end refused the user name and password in --webdriver-url: check them"
		}
		return &driver.NoBrowserError{Reason: fmt.Sprintf("WebDriver at %s refused the request: %d %s", safe, we.Status, http.StatusText(we.Status)), Hint: hint}
	case errors.As(err, &we) && we.NoMatch():
		return &driver.NoBrowserError{Reason: fmt.Sprintf("WebDriver at %s did not create a session: %v", safe, we),
			Hint: "the Grid has no node for a headless Chromium with these capabilities: check its nodes, and --webdriver-capability"}
	case errors.As(err, &we):
		return &driver.NoBrowserError{Reason: fmt.Sprintf("WebDriver at %s did not create a session: %v", safe, we),
			Hint: "check the grid's capacity and the capabilities (--webdriver-capability)"}
	}
	return &driver.NoBrowserError{Reason: fmt.Sprintf("no WebDriver answers at %s: %v", safe, err),
		Hint: "start chromedriver or the grid, or check --webdriver-url"}
}

// busyHandshake maps a websocket handshake refused with an HTTP status.
func handshakeError(endpoint string, status int, retryAfter string, hasHeaders bool) error {
	if busyStatus(status) {
		return &driver.BusyError{Endpoint: endpoint, Status: status, RetryAfter: parseRetryAfter(retryAfter, time.Now())}
	}
	hint := "check the endpoint"
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		hint = "the endpoint wants a credential: a token in the URL's query, or --ws-header 'Name: value'"
		if hasHeaders {
			hint = "the endpoint refused the credential: check the token and the --ws-header values"
		}
	}
	return &driver.NoBrowserError{Reason: fmt.Sprintf("%s refused the websocket: %d %s", endpoint, status, http.StatusText(status)), Hint: hint}
}
