// Package policy holds cdpkit's safety rules: which URLs may be loaded.
package policy

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

var (
	// ErrInvalidURL means a URL does not parse or is not absolute.
	ErrInvalidURL = errors.New("policy: invalid URL")
	// ErrURLBlocked means a URL is well formed but not allowed.
	ErrURLBlocked = errors.New("policy: URL blocked")
)

// URLError says why a URL was refused and how to proceed.
type URLError struct {
	URL  string
	Rule string
	Hint string
	err  error // ErrInvalidURL or ErrURLBlocked
}

func (e *URLError) Error() string { return fmt.Sprintf("%s: %s", e.URL, e.Rule) }
func (e *URLError) Unwrap() error { return e.err }

// CheckURL allows http, https and about:blank, the only URLs an agent
// needs by default; everything else (file:, javascript:, data:, chrome:, …)
// could read local files or run code outside the page's origin.
func CheckURL(raw string) error {
	if raw == "about:blank" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return &URLError{URL: raw, Rule: "not an absolute URL", Hint: "give a full URL such as http://127.0.0.1:8080/", err: ErrInvalidURL}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return &URLError{URL: raw, Rule: "URL has no host", Hint: "give a full URL such as https://example.com/", err: ErrInvalidURL}
		}
		return nil
	}
	return &URLError{URL: raw, Rule: fmt.Sprintf("scheme %q is not allowed (only http, https and about:blank)", u.Scheme),
		Hint: "open an http or https URL", err: ErrURLBlocked}
}
