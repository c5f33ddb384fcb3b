package browser

import (
	"context"
	"fmt"
	"strings"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Cookies returns the cookies of t's browser context, all of them
// (httpOnly included), or those the given URLs would send. The context
// bounds the call.
func (t *Tab) Cookies(ctx context.Context, urls []string) ([]driver.Cookie, error) {
	var raw []*network.Cookie
	if len(urls) > 0 {
		s, err := t.session(ctx)
		if err != nil {
			return nil, err
		}
		res, err := cdpapi.Call(ctx, s, network.GetCookies, network.GetCookiesParams{URLs: urls})
		if err != nil {
			return nil, fmt.Errorf("browser: reading cookies: %w", err)
		}
		raw = res.Cookies
	} else {
		bctx, err := t.b.contextOf(ctx, t.id)
		if err != nil {
			return nil, err
		}
		res, err := cdpapi.Call(ctx, t.b.conn.Browser(), storage.GetCookies, storage.GetCookiesParams{BrowserContextID: bctx})
		if err != nil {
			return nil, fmt.Errorf("browser: reading cookies: %w", err)
		}
		raw = res.Cookies
	}
	out := make([]driver.Cookie, 0, len(raw))
	for _, c := range raw {
		k := driver.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly, Secure: c.Secure,
			SameSite: string(c.SameSite), Size: int(c.Size)}
		if !c.Session && c.Expires > 0 {
			k.Expires = c.Expires
		}
		if c.PartitionKey != nil {
			k.PartitionKey = c.PartitionKey.TopLevelSite
		}
		out = append(out, k)
	}
	return out, nil
}

func cookieParam(c *driver.CookieSpec) *network.CookieParam {
	p := &network.CookieParam{Name: c.Name, Value: c.Value, URL: c.URL, Domain: c.Domain, Path: c.Path, Secure: c.Secure,
		HTTPOnly: c.HTTPOnly, SameSite: network.CookieSameSite(c.SameSite)}
	if c.Expires > 0 {
		p.Expires = cdpapi.TimeSinceEpoch(c.Expires)
	}
	if c.PartitionKey != "" {
		p.PartitionKey = &network.CookiePartitionKey{TopLevelSite: c.PartitionKey}
	}
	return p
}

// SetCookie sets a cookie in t's browser context. An invalid one wraps
// ErrInvalidArgument; one the browser refuses too. The context bounds the
// call.
func (t *Tab) SetCookie(ctx context.Context, c driver.CookieSpec) error {
	if err := driver.CheckCookie(&c); err != nil {
		return err
	}
	s, err := t.session(ctx)
	if err != nil {
		return err
	}
	if err := s.Call(ctx, "Network.setCookie", cookieParam(&c), nil); err != nil {
		if strings.Contains(err.Error(), "Sanitizing cookie failed") || strings.Contains(err.Error(), "Invalid") {
			return fmt.Errorf("%w: the browser refused the cookie: %v", driver.ErrInvalidArgument, err)
		}
		return fmt.Errorf("browser: setting a cookie: %w", err)
	}
	return nil
}

// DeleteCookies deletes the cookies named name that url would send, or
// that have domain (and path); with name "" it deletes every cookie of t's
// browser context. It returns how many went. The context bounds the call.
func (t *Tab) DeleteCookies(ctx context.Context, name, rawURL, domain, path string) (int, error) {
	before, err := t.Cookies(ctx, nil)
	if err != nil {
		return 0, err
	}
	if name == "" {
		bctx, err := t.b.contextOf(ctx, t.id)
		if err != nil {
			return 0, err
		}
		if _, err := cdpapi.Call(ctx, t.b.conn.Browser(), storage.ClearCookies, storage.ClearCookiesParams{BrowserContextID: bctx}); err != nil {
			return 0, fmt.Errorf("browser: deleting cookies: %w", err)
		}
		return len(before), nil
	}
	if (rawURL == "") == (domain == "") {
		return 0, fmt.Errorf("%w: give url, or domain (and path), with name", driver.ErrInvalidArgument)
	}
	s, err := t.session(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := cdpapi.Call(ctx, s, network.DeleteCookies, network.DeleteCookiesParams{Name: name, URL: rawURL, Domain: domain, Path: path}); err != nil {
		return 0, fmt.Errorf("browser: deleting cookies: %w", err)
	}
	after, err := t.Cookies(ctx, nil)
	if err != nil {
		return 0, err
	}
	return len(before) - len(after), nil
}
