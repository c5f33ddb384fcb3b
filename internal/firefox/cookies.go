package firefox

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Cookies over BiDi's storage module: storage.getCookies, setCookie and
// deleteCookies, in the partition of the tab (its user context: a scope
// that isolates has its own).

// bidiCookie is a cookie as BiDi's storage module gives it.
type bidiCookie struct {
	Name  string `json:"name"`
	Value struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"value"`
	Domain   string   `json:"domain"`
	Path     string   `json:"path"`
	Size     int      `json:"size"`
	HTTPOnly bool     `json:"httpOnly"`
	Secure   bool     `json:"secure"`
	SameSite string   `json:"sameSite"`
	Expiry   *float64 `json:"expiry"`
}

func (c *bidiCookie) cookie() driver.Cookie {
	k := driver.Cookie{Name: c.Name, Value: c.Value.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly,
		Secure: c.Secure, Size: c.Size}
	switch c.SameSite {
	case "strict":
		k.SameSite = "Strict"
	case "lax":
		k.SameSite = "Lax"
	case "none":
		k.SameSite = "None"
	}
	if c.Expiry != nil && *c.Expiry > 0 {
		k.Expires = *c.Expiry
	}
	return k
}

// partition is the tab's storage partition.
func (t *Tab) partition() map[string]any { return map[string]any{"type": "context", "context": t.id} }

// allCookies returns every cookie of the tab's partition.
func (t *Tab) allCookies(ctx context.Context) ([]bidiCookie, error) {
	var r struct {
		Cookies []bidiCookie `json:"cookies"`
	}
	if err := t.b.conn.Call(ctx, "storage.getCookies", map[string]any{"partition": t.partition()}, &r); err != nil {
		return nil, fmt.Errorf("firefox: reading cookies: %w", t.wrap(err))
	}
	return r.Cookies, nil
}

// Cookies implements driver.TabDriver: every cookie of the tab's user
// context (httpOnly included), or those one of urls would send.
func (t *Tab) Cookies(ctx context.Context, urls []string) ([]driver.Cookie, error) {
	raw, err := t.allCookies(ctx)
	if err != nil {
		return nil, err
	}
	var parsed []*url.URL
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("%w: url %q is not an absolute URL", driver.ErrInvalidArgument, s)
		}
		parsed = append(parsed, u)
	}
	out := make([]driver.Cookie, 0, len(raw))
	for _, c := range raw {
		if len(parsed) > 0 && !sentToAny(&c, parsed) {
			continue
		}
		out = append(out, c.cookie())
	}
	return out, nil
}

// sentToAny reports whether a request to one of urls would carry c.
func sentToAny(c *bidiCookie, urls []*url.URL) bool {
	for _, u := range urls {
		if sentTo(c, u) {
			return true
		}
	}
	return false
}

func sentTo(c *bidiCookie, u *url.URL) bool {
	host, domain := strings.ToLower(u.Hostname()), strings.ToLower(c.Domain)
	switch {
	case strings.HasPrefix(domain, "."):
		if host != domain[1:] && !strings.HasSuffix(host, domain) {
			return false
		}
	case host != domain:
		return false
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	if c.Path != "" && c.Path != "/" && p != c.Path && !strings.HasPrefix(p, strings.TrimSuffix(c.Path, "/")+"/") {
		return false
	}
	return !c.Secure || u.Scheme == "https" || host == "localhost" || host == "127.0.0.1"
}

// SetCookie implements driver.TabDriver: storage.setCookie in the tab's
// partition. Partitioned (CHIPS) cookies are refused as unsupported.
func (t *Tab) SetCookie(ctx context.Context, c driver.CookieSpec) error {
	if c.PartitionKey != "" {
		return unsupported("partitioned cookies (partitionKey)")
	}
	if err := driver.CheckCookie(&c); err != nil {
		return err
	}
	return t.setCookie(ctx, c)
}

func (t *Tab) setCookie(ctx context.Context, c driver.CookieSpec) error {
	domain, path := c.Domain, c.Path
	if c.URL != "" {
		u, _ := url.Parse(c.URL) // checked
		domain = u.Hostname()
	}
	if path == "" {
		path = "/"
	}
	cookie := map[string]any{"name": c.Name, "value": map[string]any{"type": "string", "value": c.Value},
		"domain": domain, "path": path, "httpOnly": c.HTTPOnly, "secure": c.Secure}
	if c.SameSite != "" {
		cookie["sameSite"] = strings.ToLower(c.SameSite)
	}
	if c.Expires > 0 {
		cookie["expiry"] = int64(c.Expires)
	}
	err := t.b.conn.Call(ctx, "storage.setCookie", map[string]any{"cookie": cookie, "partition": t.partition()}, nil)
	if err != nil {
		if strings.Contains(err.Error(), "unable to set cookie") || strings.Contains(err.Error(), "invalid argument") {
			return fmt.Errorf("%w: the browser refused the cookie: %v", driver.ErrInvalidArgument, err)
		}
		return fmt.Errorf("firefox: setting a cookie: %w", t.wrap(err))
	}
	return nil
}

// DeleteCookies implements driver.TabDriver: the cookies named name that
// rawURL would send, or that have domain (and path); with name "" every
// cookie of the tab's user context. It returns how many went.
func (t *Tab) DeleteCookies(ctx context.Context, name, rawURL, domain, path string) (int, error) {
	before, err := t.allCookies(ctx)
	if err != nil {
		return 0, err
	}
	if name == "" {
		if err := t.b.conn.Call(ctx, "storage.deleteCookies", map[string]any{"partition": t.partition()}, nil); err != nil {
			return 0, fmt.Errorf("firefox: deleting cookies: %w", t.wrap(err))
		}
		return len(before), nil
	}
	if (rawURL == "") == (domain == "") {
		return 0, fmt.Errorf("%w: give url, or domain (and path), with name", driver.ErrInvalidArgument)
	}
	var u *url.URL
	if rawURL != "" {
		if u, err = url.Parse(rawURL); err != nil || u.Host == "" {
			return 0, fmt.Errorf("%w: url %q is not an absolute URL", driver.ErrInvalidArgument, rawURL)
		}
	}
	n := 0
	for _, c := range before {
		if c.Name != name {
			continue
		}
		if u != nil && !sentTo(&c, u) {
			continue
		}
		if u == nil && (strings.TrimPrefix(c.Domain, ".") != strings.TrimPrefix(domain, ".") || (path != "" && c.Path != path)) {
			continue
		}
		filter := map[string]any{"name": c.Name, "domain": c.Domain, "path": c.Path}
		if err := t.b.conn.Call(ctx, "storage.deleteCookies", map[string]any{"filter": filter, "partition": t.partition()}, nil); err != nil {
			return n, fmt.Errorf("firefox: deleting cookies: %w", t.wrap(err))
		}
		n++
	}
	return n, nil
}
