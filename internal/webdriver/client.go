// Package webdriver is a small client of the W3C WebDriver session
// endpoints that cdpkit needs to borrow a browser from chromedriver or a
// Selenium Grid 4: create a session, keep it alive, delete it. The browser
// itself is then driven over CDP, through the session's se:cdp address
// (Grid) or goog:chromeOptions.debuggerAddress (chromedriver); no other
// WebDriver command is sent.
//
// Every request has a deadline: the caller's context, and at most the
// client's per-request timeout.
package webdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// ErrSessionLost means the remote end no longer knows the session
// ("invalid session id"): its browser died, or the grid timed it out.
var ErrSessionLost = errors.New("webdriver: session lost")

// Error is a WebDriver error response, or an HTTP status the remote end
// answered without one.
type Error struct {
	Status     int    // HTTP status
	Code       string // the W3C error code, such as "session not created"; "" if none
	Message    string // the remote end's message
	RetryAfter string // the Retry-After header, verbatim
}

func (e *Error) Error() string {
	code := e.Code
	if code == "" {
		code = http.StatusText(e.Status)
	}
	if e.Message == "" {
		return fmt.Sprintf("webdriver: %d %s", e.Status, code)
	}
	return fmt.Sprintf("webdriver: %s: %s", code, e.Message)
}

// Unwrap makes an "invalid session id" match ErrSessionLost.
func (e *Error) Unwrap() error {
	if e.Code == "invalid session id" {
		return ErrSessionLost
	}
	return nil
}

// Busy reports whether the remote end said it is at capacity (HTTP 429 or
// 503), so a later request may succeed.
func (e *Error) Busy() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable
}

// QueueTimeout reports whether a Selenium Grid dropped the request from
// its queue after its --session-request-timeout: every slot stayed busy.
func (e *Error) QueueTimeout() bool {
	return e.Code == "session not created" && strings.Contains(e.Message, "request timed out")
}

// NoMatch reports whether a Selenium Grid refused the request because no
// node offers the capabilities (with --reject-unsupported-caps).
func (e *Error) NoMatch() bool {
	return e.Code == "session not created" && strings.Contains(e.Message, "No nodes support the capabilities")
}

// Per-request bounds, under the caller's context. Creating a session
// starts a browser, which a grid may queue; the others are bookkeeping.
const (
	CreateTimeout  = 2 * time.Minute
	RequestTimeout = 10 * time.Second
)

// Client talks to one WebDriver remote end. It is safe for concurrent use.
type Client struct {
	// Logger reports what happens to withdrawn session requests; nil
	// means slog.Default(). Set it before the first request.
	Logger *slog.Logger

	base string // the remote end's URL, without a trailing slash
	http *http.Client
}

// NewClient returns a client of the remote end at base, an http:// or
// https:// URL such as http://127.0.0.1:9515 or http://grid:4444/wd/hub.
// A nil hc means http.DefaultClient.
func NewClient(base string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("webdriver: %s is not an http:// or https:// URL", policy.RedactEndpoint(base))
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(base, "/"), http: hc}, nil
}

// URL returns the remote end's URL as given.
func (c *Client) URL() string { return c.base }

// do sends a request with a JSON body (nil for none) and decodes the
// response's "value" into out (nil to discard it), bounded by ctx and
// limit.
func (c *Client) do(ctx context.Context, limit time.Duration, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("webdriver: %w", err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return fmt.Errorf("webdriver: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// net/http quotes the URL, which may hold a password.
		var ue *url.Error
		if errors.As(err, &ue) {
			return fmt.Errorf("webdriver: %s %s: %w", method, policy.RedactEndpoint(c.base+path), ue.Err)
		}
		return fmt.Errorf("webdriver: %s: %w", method, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("webdriver: reading the answer to %s %s: %w", method, path, err)
	}
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	jerr := json.Unmarshal(data, &env)
	if resp.StatusCode != http.StatusOK {
		e := &Error{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
		var v struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		if jerr == nil && json.Unmarshal(env.Value, &v) == nil {
			e.Code, e.Message = v.Error, firstLine(v.Message)
		}
		return e
	}
	if jerr != nil {
		return fmt.Errorf("webdriver: the answer to %s %s is not WebDriver JSON: %w", method, path, jerr)
	}
	if out != nil {
		if err := json.Unmarshal(env.Value, out); err != nil {
			return fmt.Errorf("webdriver: the answer to %s %s: %w", method, path, err)
		}
	}
	return nil
}

// firstLine keeps a message to its first line, capped: chromedriver and
// Grid append build info and stack traces.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
