package driver

import (
	"fmt"
	"net/url"
	"strings"
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

// CheckCookie validates a cookie to set, naming the bad field in an error
// that wraps ErrInvalidArgument.
func CheckCookie(c *CookieSpec) error {
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
