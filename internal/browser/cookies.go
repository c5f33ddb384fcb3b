package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
)

// Cookie is one cookie of a browser context. Expires is seconds since
// the epoch; 0 for a session cookie.
type Cookie struct {
	Name         string  `json:"name"`
	Value        string  `json:"value,omitempty"`
	Domain       string  `json:"domain"`
	Path         string  `json:"path"`
	Expires      float64 `json:"expires,omitempty"`
	HTTPOnly     bool    `json:"httpOnly,omitempty"`
	Secure       bool    `json:"secure,omitempty"`
	SameSite     string  `json:"sameSite,omitempty"` // Strict, Lax or None; "" when unset
	PartitionKey string  `json:"partitionKey,omitempty"`
	Size         int     `json:"size,omitempty"`
}

// CookieSpec is a cookie to set: with URL, or with Domain (and Path).
type CookieSpec struct {
	Cookie
	URL string
}

// Cookies returns the cookies of t's browser context, all of them
// (httpOnly included), or those the given URLs would send. The context
// bounds the call.
func (t *Tab) Cookies(ctx context.Context, urls []string) ([]Cookie, error) {
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
	out := make([]Cookie, 0, len(raw))
	for _, c := range raw {
		k := Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly, Secure: c.Secure,
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

// checkCookie validates a cookie to set, naming the bad field in an error
// that wraps ErrInvalidArgument.
func checkCookie(c *CookieSpec) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
	}
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, "=;, \t\r\n"):
		return bad("name %q is empty or has =, ;, a comma or whitespace", c.Name)
	case strings.ContainsAny(c.Value, ";\r\n\x00"):
		return bad("value has ; or a line break")
	case (c.URL == "") == (c.Domain == ""):
		return bad("give url, or domain (and path), but one of them")
	case c.Path != "" && !strings.HasPrefix(c.Path, "/"):
		return bad("path %q does not start with /", c.Path)
	case c.Expires < 0:
		return bad("expires %v is negative", c.Expires)
	}
	switch c.SameSite {
	case "", "Strict", "Lax", "None":
	default:
		return bad("sameSite %q is not Strict, Lax or None", c.SameSite)
	}
	if c.SameSite == "None" && !c.Secure {
		return bad("sameSite None needs secure")
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return bad("url %q is not an http or https URL", c.URL)
		}
		if c.Secure && u.Scheme != "https" && u.Hostname() != "localhost" && u.Hostname() != "127.0.0.1" {
			return bad("a secure cookie needs an https url, not %s", u.Scheme)
		}
	}
	if c.Domain != "" && (strings.ContainsAny(c.Domain, "/:@ ") || strings.Trim(c.Domain, ".") == "") {
		return bad("domain %q is not a host name", c.Domain)
	}
	if c.PartitionKey != "" {
		u, err := url.Parse(c.PartitionKey)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path != "" {
			return bad("partitionKey %q is not a top-level site such as https://example.com", c.PartitionKey)
		}
		if !c.Secure {
			return bad("a partitioned cookie needs secure")
		}
	}
	return nil
}

func cookieParam(c *CookieSpec) *network.CookieParam {
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
func (t *Tab) SetCookie(ctx context.Context, c CookieSpec) error {
	if err := checkCookie(&c); err != nil {
		return err
	}
	s, err := t.session(ctx)
	if err != nil {
		return err
	}
	if err := s.Call(ctx, "Network.setCookie", cookieParam(&c), nil); err != nil {
		if strings.Contains(err.Error(), "Sanitizing cookie failed") || strings.Contains(err.Error(), "Invalid") {
			return fmt.Errorf("%w: the browser refused the cookie: %v", ErrInvalidArgument, err)
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
		return 0, fmt.Errorf("%w: give url, or domain (and path), with name", ErrInvalidArgument)
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
