package bidi

import (
	"context"
	"fmt"
)

// NewSession starts the BiDi session on a fresh connection (session.new)
// and returns its id. ctx bounds the command.
func (c *Conn) NewSession(ctx context.Context) (string, error) {
	var r struct {
		SessionID    string `json:"sessionId"`
		Capabilities struct {
			BrowserName    string `json:"browserName"`
			BrowserVersion string `json:"browserVersion"`
		} `json:"capabilities"`
	}
	params := map[string]any{"capabilities": map[string]any{
		"alwaysMatch": map[string]any{
			// Prompts stay open until a tool answers them, as on Chromium.
			"unhandledPromptBehavior": map[string]any{"default": "ignore"},
		},
	}}
	if err := c.Call(ctx, "session.new", params, &r); err != nil {
		return "", err
	}
	if r.SessionID == "" {
		return "", fmt.Errorf("bidi: session.new: no session id in the reply")
	}
	c.core.Mu.Lock()
	c.version = r.Capabilities.BrowserName + "/" + r.Capabilities.BrowserVersion
	c.core.Mu.Unlock()
	return r.SessionID, nil
}

// Version is the browser's name and version from session.new, such as
// "firefox/153.8.0"; empty before NewSession.
func (c *Conn) Version() string {
	c.core.Mu.Lock()
	defer c.core.Mu.Unlock()
	return c.version
}

// Subscribe asks the browser to send the events named (whole modules such
// as "log" or single events such as "browsingContext.load") for every
// browsing context. Register handlers with On first, so none is missed.
func (c *Conn) Subscribe(ctx context.Context, events ...string) error {
	return c.Call(ctx, "session.subscribe", map[string]any{"events": events}, nil)
}
