package webdriver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"time"
)

// Session is a WebDriver session: a browser that the remote end started
// and holds for cdpkit until [Session.Delete].
type Session struct {
	ID string
	// CDP is the browser's DevTools websocket through the grid (the
	// se:cdp capability), or "".
	CDP string
	// DebuggerAddress is host:port of the browser's remote debugging port
	// (goog:chromeOptions.debuggerAddress, as chromedriver reports), or "".
	DebuggerAddress string

	c *Client
}

// NewSession asks the remote end for a browser with these capabilities
// (W3C alwaysMatch, with [OwnerCapability] added) and returns the session.
// ctx bounds the wait; the request itself runs for CreateTimeout at most.
// When ctx ends first, NewSession returns a [WithdrawnError] and the
// request goes on in the background: a session it brings is deleted at
// once (see [Drain]). The session has a way in for CDP, or NewSession
// deletes it and fails.
func (c *Client) NewSession(ctx context.Context, caps map[string]json.RawMessage) (*Session, error) {
	caps = maps.Clone(caps)
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	if _, ok := caps[OwnerCapability]; !ok {
		caps[OwnerCapability] = ownerCap()
	}
	start := time.Now()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CreateTimeout)
	answers := make(chan answer, 1)
	go func() {
		s, err := c.newSession(rctx, caps)
		answers <- answer{s, err}
	}()
	select {
	case a := <-answers:
		cancel()
		return a.s, a.err
	case <-ctx.Done():
		c.withdraw(answers, cancel)
		return nil, &WithdrawnError{Waited: time.Since(start)}
	}
}

func (c *Client) newSession(ctx context.Context, caps map[string]json.RawMessage) (*Session, error) {
	body := map[string]any{"capabilities": map[string]any{"alwaysMatch": caps, "firstMatch": []any{map[string]any{}}}}
	var v struct {
		SessionID    string `json:"sessionId"`
		Capabilities struct {
			CDP     string `json:"se:cdp"`
			Options struct {
				DebuggerAddress string `json:"debuggerAddress"`
			} `json:"goog:chromeOptions"`
		} `json:"capabilities"`
	}
	if err := c.do(ctx, CreateTimeout, http.MethodPost, "/session", body, &v); err != nil {
		return nil, err
	}
	if v.SessionID == "" {
		return nil, fmt.Errorf("webdriver: the new session has no sessionId")
	}
	s := &Session{ID: v.SessionID, CDP: v.Capabilities.CDP, DebuggerAddress: v.Capabilities.Options.DebuggerAddress, c: c}
	if s.CDP == "" && s.DebuggerAddress == "" {
		err := fmt.Errorf("webdriver: the session has neither se:cdp nor goog:chromeOptions.debuggerAddress, so its browser has no DevTools address")
		if derr := s.Delete(context.WithoutCancel(ctx)); derr != nil {
			err = fmt.Errorf("%w (and deleting it: %v)", err, derr)
		}
		return nil, err
	}
	return s, nil
}

// URL returns the remote end's URL.
func (s *Session) URL() string { return s.c.base }

func (s *Session) path() string { return "/session/" + url.PathEscape(s.ID) }

// Delete ends the session, which stops its browser. ctx bounds it, and
// RequestTimeout at most. A session the remote end no longer knows counts
// as deleted.
func (s *Session) Delete(ctx context.Context) error {
	err := s.c.do(ctx, RequestTimeout, http.MethodDelete, s.path(), nil, nil)
	if e, ok := err.(*Error); ok && (e.Status == http.StatusNotFound || e.Code == "invalid session id") {
		return nil
	}
	return err
}

// Ping sends the session a command that changes nothing (Get Timeouts),
// which resets a grid's idle timer for it. It fails with ErrSessionLost
// when the remote end no longer knows the session. ctx bounds it, and
// RequestTimeout at most.
func (s *Session) Ping(ctx context.Context) error {
	return s.c.do(ctx, RequestTimeout, http.MethodGet, s.path()+"/timeouts", nil, nil)
}
