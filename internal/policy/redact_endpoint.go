package policy

import (
	"net/url"
	"strings"
)

// RedactEndpoint returns a browser endpoint fit for a log or an error
// message (unlike [RedactURL], it keeps the query's names and the user): a password in
// its user info and every query value are replaced by [Redacted], since
// browser pools and grids take their token there (wss://host/?token=…).
// Scheme, host, path and the query's names stay, so the address is still
// recognisable. A URL that does not parse is replaced whole.
func RedactEndpoint(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return Redacted
	}
	if p.User != nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "x")
		}
	}
	query := p.RawQuery
	p.RawQuery, p.Fragment, p.RawFragment = "", "", ""
	s := p.String()
	if p.User != nil {
		if _, ok := p.User.Password(); ok {
			s = strings.Replace(s, ":x@", ":"+Redacted+"@", 1)
		}
	}
	if query == "" {
		return s
	}
	parts := strings.Split(query, "&")
	for i, kv := range parts {
		if name, _, ok := strings.Cut(kv, "="); ok {
			parts[i] = name + "=" + Redacted
		}
	}
	return s + "?" + strings.Join(parts, "&")
}
