package policy

import (
	"net/netip"
	"strings"
)

// CompleteURL adds the scheme a browser's address bar would to a URL typed
// without one: http for localhost and IP literals (local servers rarely
// speak TLS), https for any other dotted host name. localhost:3000/path
// becomes http://localhost:3000/path and example.com/a https://example.com/a.
// Anything else — a URL with a scheme, a bare word, about:blank — comes
// back unchanged, for CheckURL to judge.
func CompleteURL(raw string) string {
	s := strings.TrimSpace(raw)
	if s == "" || strings.Contains(s, "://") || strings.HasPrefix(s, "/") {
		return raw
	}
	hostport := cutAny(s, "/?#")
	host, port := hostport, ""
	bracketed := strings.HasPrefix(hostport, "[")
	if bracketed { // [::1]:8080
		i := strings.IndexByte(hostport, ']')
		if i < 0 {
			return raw
		}
		host, port = hostport[1:i], strings.TrimPrefix(hostport[i+1:], ":")
		if hostport[i+1:] != "" && !strings.HasPrefix(hostport[i+1:], ":") {
			return raw
		}
	} else if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host, port = hostport[:i], hostport[i+1:]
	}
	if strings.ContainsAny(host, "@\\ ") || (!bracketed && strings.Contains(host, ":")) || host == "" || !digits(port) {
		return raw // user:pass@, mailto:, javascript:…, or a port that is not one
	}
	lower := strings.ToLower(strings.TrimSuffix(host, "."))
	_, ipErr := netip.ParseAddr(lower)
	switch {
	case lower == "localhost" || strings.HasSuffix(lower, ".localhost") || ipErr == nil:
		return "http://" + s
	case strings.Contains(lower, ".") && !strings.HasPrefix(lower, ".") && !strings.Contains(lower, ".."):
		return "https://" + s
	}
	return raw
}

// digits reports whether s is empty or only ASCII digits.
func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
