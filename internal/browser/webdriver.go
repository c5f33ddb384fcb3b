package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

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

// wdDelete bounds deleting a session on close.
const wdDelete = 10 * time.Second

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
			return nil, fmt.Errorf("%w: goog:chromeOptions must be a JSON object", ErrInvalidArgument)
		}
		for ek, ev := range extra {
			if ek == "args" {
				var more []string
				if err := json.Unmarshal(ev, &more); err != nil {
					return nil, fmt.Errorf("%w: goog:chromeOptions.args must be a list of strings", ErrInvalidArgument)
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
		return nil, "", &NoBrowserError{Reason: err.Error(), Hint: "give --webdriver-url as http://host:port, such as http://127.0.0.1:9515 or http://grid:4444"}
	}
	caps, err := webdriverCaps(o)
	if err != nil {
		return nil, "", err
	}
	s, err := c.NewSession(ctx, caps)
	if err != nil {
		return nil, "", webdriverError(ctx, safe, err)
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

// webdriverError maps a failed session creation: a busy remote end is
// BusyError; "session not created", a grid's timeout or any other answer
// is NoBrowserError with the remote end's message.
func webdriverError(ctx context.Context, safe string, err error) error {
	var we *webdriver.Error
	switch {
	case errors.As(err, &we) && we.Busy():
		return &BusyError{Endpoint: safe, Status: we.Status, RetryAfter: parseRetryAfter(we.RetryAfter, time.Now())}
	case errors.As(err, &we):
		return &NoBrowserError{Reason: fmt.Sprintf("WebDriver at %s did not create a session: %v", safe, we),
			Hint: "check the grid's capacity and the capabilities (--webdriver-capability)"}
	case ctx.Err() != nil:
		return &NoBrowserError{Reason: fmt.Sprintf("WebDriver at %s did not create a session before the deadline", safe),
			Hint: "the grid may be queueing requests; retry, or raise the call's timeout"}
	}
	return &NoBrowserError{Reason: fmt.Sprintf("no WebDriver answers at %s: %v", safe, err),
		Hint: "start chromedriver or the grid, or check --webdriver-url"}
}

// busyHandshake maps a websocket handshake refused with an HTTP status.
func handshakeError(endpoint string, status int, retryAfter string, hasHeaders bool) error {
	if busyStatus(status) {
		return &BusyError{Endpoint: endpoint, Status: status, RetryAfter: parseRetryAfter(retryAfter, time.Now())}
	}
	hint := "check the endpoint"
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		hint = "the endpoint wants a credential: a token in the URL's query, or --ws-header 'Name: value'"
		if hasHeaders {
			hint = "the endpoint refused the credential: check the token and the --ws-header values"
		}
	}
	return &NoBrowserError{Reason: fmt.Sprintf("%s refused the websocket: %d %s", endpoint, status, http.StatusText(status)), Hint: hint}
}
