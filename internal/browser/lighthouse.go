package browser

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// AuditBrowser is a Chromium of its own that an outside tool (Lighthouse)
// drives for one audit, through a debugging port on 127.0.0.1. cdpkit's
// own browser never opens a port; this one lives only as long as the
// audit, in a temporary profile, and is held to the same URL policy as
// cdpkit's browser: the URL guard judges every document request, and an
// egress proxy of its own judges every address. See
// docs/decisions/2026-12-03-lighthouse-audit-browser.md.
type AuditBrowser struct {
	p    *process
	conn *cdp.Conn
	port int
}

// StartAuditBrowser launches an audit browser with the Manager's
// executable, flags and URL policy, headless, and sets cookies in it (the
// audited tab's, so the audit sees the page as the tab does). The context
// bounds the start. The caller must Close it.
func (m *Manager) StartAuditBrowser(ctx context.Context, cookies []driver.Cookie) (*AuditBrowser, error) {
	o := m.opts
	o.BrowserURL, o.WSEndpoint, o.AutoConnect = "", "", ""
	o.profile = ""         // a temporary profile of its own, removed on close
	o.UserDataDir = ""     // not the user's, which cdpkit's own browser holds
	o.Headful = false      // nothing to look at
	o.portTransport = true // the port is what the outside tool speaks to
	ctx, cancel := context.WithTimeout(ctx, o.launchTimeout())
	defer cancel()
	p, conn, err := launch(ctx, &o)
	if err != nil {
		return nil, err
	}
	a := &AuditBrowser{p: p, conn: conn}
	// The guard judges documents (origin lists, schemes) as in cdpkit's
	// browser; the egress proxy, started by launch, judges every address.
	if !o.noGuard {
		if _, err := startGuard(ctx, conn, o.urlPolicy(), o.logger()); err != nil {
			a.Close()
			return nil, err
		}
	}
	ep, err := activePortEndpoint(p.profile)
	if err == nil {
		var u *url.URL
		if u, err = url.Parse(ep); err == nil {
			a.port, err = strconv.Atoi(u.Port())
		}
	}
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("browser: reading the audit browser's port: %w", err)
	}
	if len(cookies) > 0 {
		params := make([]*network.CookieParam, 0, len(cookies))
		for _, c := range cookies {
			params = append(params, cookieParam(&driver.CookieSpec{Cookie: c}))
		}
		if _, err := cdpapi.Call(ctx, conn.Browser(), storage.SetCookies, storage.SetCookiesParams{Cookies: params}); err != nil {
			a.Close()
			return nil, fmt.Errorf("browser: carrying cookies into the audit browser: %w", err)
		}
	}
	return a, nil
}

// Port is the audit browser's debugging port on 127.0.0.1.
func (a *AuditBrowser) Port() int { return a.port }

// Close stops the audit browser, kills its processes and removes its
// profile. It returns once the process is reaped, bounded by a few
// seconds.
func (a *AuditBrowser) Close() error {
	err := a.p.close(a.conn)
	a.conn.Close()
	return err
}
