// Package policy holds cdpkit's safety rules: which URLs may be loaded,
// where files may be written and read, which browser flags may be passed.
package policy

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

var (
	// ErrInvalidURL means a URL does not parse or is not absolute.
	ErrInvalidURL = errors.New("policy: invalid URL")
	// ErrURLBlocked means a URL is well formed but not allowed.
	ErrURLBlocked = errors.New("policy: URL blocked")
	// ErrHostUnresolved means a URL's host has no address cdpkit could
	// look up (no such name, no answer in time): no rule refused it, but
	// it is refused all the same (an address that cannot be checked is
	// not loaded), so it matches ErrURLBlocked too.
	ErrHostUnresolved = fmt.Errorf("%w: host not resolved", ErrURLBlocked)
)

// URLError says why a URL was refused and how to proceed.
type URLError struct {
	URL  string
	Rule string
	Hint string
	err  error // ErrInvalidURL, ErrURLBlocked or ErrHostUnresolved
}

func (e *URLError) Error() string { return fmt.Sprintf("%s: %s", e.URL, e.Rule) }
func (e *URLError) Unwrap() error { return e.err }

func blocked(raw, rule, hint string) *URLError {
	return &URLError{URL: raw, Rule: rule, Hint: hint, err: ErrURLBlocked}
}

func unresolved(raw, rule, hint string) *URLError {
	return &URLError{URL: raw, Rule: rule, Hint: hint, err: ErrHostUnresolved}
}

func invalid(raw, rule string) *URLError {
	return &URLError{URL: raw, Rule: rule, Hint: "give a full URL such as https://example.com/", err: ErrInvalidURL}
}

// CheckURL checks only the scheme and syntax of raw: http, https and
// about:blank are allowed, everything else (file:, javascript:, data:,
// chrome:, …) could read local files or run code outside the page's
// origin. [Policy.Check] adds the network rules.
func CheckURL(raw string) error {
	_, err := parseURL(raw)
	return err
}

// target is a URL as Chromium would load it: scheme, canonical host (an
// IPv4 address in dotted form, an IPv6 address without brackets, or a
// lower-case name without a trailing dot) and port.
type target struct {
	scheme string // "http", "https" or "about"
	host   string
	port   string // explicit or the scheme's default
}

// origin returns scheme://host:port, the form origin lists are matched in.
func (t target) origin() string {
	h := t.host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return t.scheme + "://" + h + ":" + t.port
}

// parseURL parses raw the way a browser's URL parser (WHATWG) does for
// the schemes cdpkit allows, so that the host it checks is the host
// Chromium connects to: surrounding spaces and control characters are
// dropped, tabs and newlines inside are ignored, backslashes count as
// slashes, any number of slashes may follow "http:", the host is
// percent-decoded and lower-cased, and numeric hosts in any spelling
// (2852039166, 0xA9FEA9FE, 0251.0376.0251.0376, 10.1, a trailing dot) are
// IPv4 addresses.
func parseURL(raw string) (target, error) {
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || !validScheme(scheme) {
		return target{}, invalid(raw, "not an absolute URL")
	}
	scheme = strings.ToLower(scheme)
	switch scheme {
	case "about":
		if rest == "blank" || strings.HasPrefix(rest, "blank?") || strings.HasPrefix(rest, "blank#") {
			return target{scheme: "about", host: "blank"}, nil
		}
		return target{}, blocked(raw, fmt.Sprintf("about:%s is not allowed (only about:blank)", cutAny(rest, "?#")),
			"open an http or https URL; no flag lifts this rule")
	case "http", "https":
	case "file":
		return target{}, blocked(raw, `scheme "file" is not allowed (only http, https and about:blank)`, fileHint)
	default:
		return target{}, blocked(raw, fmt.Sprintf("scheme %q is not allowed (only http, https and about:blank)", scheme),
			"open an http or https URL; no flag lifts this rule")
	}
	// For these special schemes a backslash is a slash, and the authority
	// starts after any run of slashes.
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	rest = strings.ReplaceAll(rest[:end], `\`, "/") + rest[end:]
	rest = strings.TrimLeft(rest, "/")
	authority := cutAny(rest, "/?#")
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	hostport := authority
	port := ""
	if strings.HasPrefix(hostport, "[") {
		i := strings.IndexByte(hostport, ']')
		if i < 0 {
			return target{}, invalid(raw, "unclosed [ in the host")
		}
		port = strings.TrimPrefix(hostport[i+1:], ":")
		if hostport[i+1:] != "" && !strings.HasPrefix(hostport[i+1:], ":") {
			return target{}, invalid(raw, "bad port")
		}
		hostport = hostport[:i+1]
	} else if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		hostport, port = hostport[:i], hostport[i+1:]
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	} else {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return target{}, invalid(raw, "bad port")
		}
		port = strconv.FormatUint(n, 10)
	}
	host, err := canonicalHost(hostport)
	if err != nil {
		return target{}, invalid(raw, err.Error())
	}
	return target{scheme: scheme, host: host, port: port}, nil
}

func validScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// cutAny returns s up to the first of chars.
func cutAny(s, chars string) string {
	if i := strings.IndexAny(s, chars); i >= 0 {
		return s[:i]
	}
	return s
}

// canonicalHost returns the host as Chromium canonicalizes it.
func canonicalHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("URL has no host")
	}
	if strings.HasPrefix(h, "[") {
		ip, err := parseIPv6(h[1 : len(h)-1])
		if err != nil {
			return "", err
		}
		return ip, nil
	}
	d, err := url.PathUnescape(h)
	if err != nil {
		return "", errors.New("bad percent-encoding in the host")
	}
	if d, err = toASCIIHost(d); err != nil {
		return "", err
	}
	d = strings.ToLower(d)
	if strings.ContainsAny(d, " #%/:<>?@[\\]^|\x00") {
		return "", errors.New("forbidden character in the host")
	}
	if endsInNumber(d) {
		ip, err := parseIPv4(d)
		if err != nil {
			return "", err
		}
		return ip, nil
	}
	return strings.TrimSuffix(d, "."), nil
}
