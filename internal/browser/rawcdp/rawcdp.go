// Package rawcdp hands out the CDP handles behind a browser.Tab and a
// browser.Browser, which package browser keeps unexported: for tests and
// measurement programs that must do what no tool does (crash a renderer,
// freeze a page, dispatch raw input, time bare round trips). Production
// code above internal/browser must not import it; the import-rule test in
// the module root fails if it does.
package rawcdp

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// The accessors package browser registers at init.
var (
	tabSession  func(ctx context.Context, tab any) (*cdp.Session, error)
	browserConn func(b any) *cdp.Conn
)

// Register is called by package browser, once, at init; no one else
// should call it.
func Register(session func(ctx context.Context, tab any) (*cdp.Session, error), conn func(b any) *cdp.Conn) {
	tabSession, browserConn = session, conn
}

// Session returns the CDP session of tab, a *browser.Tab, attaching to it
// (and enabling the domains cdpkit relies on) on first use. ctx bounds
// attaching.
func Session(ctx context.Context, tab any) (*cdp.Session, error) { return tabSession(ctx, tab) }

// Conn returns the CDP connection of b, a *browser.Browser.
func Conn(b any) *cdp.Conn { return browserConn(b) }
