package mcpserver

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// hostPolicy is which names a request's Host and Origin may carry: the
// loopback names, the extra names given, and the address the request's
// connection arrived at written as an IP literal. That last one lets
// clients reach a server bound to 0.0.0.0 by the machine's own address
// without opening the door to DNS rebinding, which needs a name.
type hostPolicy map[string]bool

func newHostPolicy(extra []string) hostPolicy {
	p := hostPolicy{"localhost": true, "127.0.0.1": true, "::1": true}
	for _, h := range extra {
		p[strings.ToLower(h)] = true
	}
	return p
}

// allows reports whether name (lower case, without port or brackets) may
// name this server in r.
func (p hostPolicy) allows(name string, r *http.Request) bool {
	if p[name] {
		return true
	}
	ip := net.ParseIP(name)
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return ip != nil && ok && !ip.IsUnspecified() && ip.Equal(local.IP)
}

// refusal returns why r's Host or Origin is refused, or "".
func (p hostPolicy) refusal(r *http.Request) string {
	if !p.allows(hostname(r.Host), r) {
		return "forbidden: Host is not an allowed name"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if origin == "null" || err != nil || !p.allows(strings.ToLower(u.Hostname()), r) {
			return "forbidden: Origin is not allowed"
		}
	}
	return ""
}

// RequireHost serves next only the requests whose Host and Origin pass
// the checks NewHTTPHandler makes (the loopback names, hosts, and the
// server's own address as the client reached it); others get 403 and
// their connection is closed. It guards cdpkit's other HTTP endpoints
// (/metrics, the profiles) against DNS rebinding as /mcp is guarded.
func RequireHost(hosts []string, next http.Handler) http.Handler {
	p := newHostPolicy(hosts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := p.refusal(r); msg != "" {
			refuseAndClose(w, func() { http.Error(w, msg, http.StatusForbidden) })
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostname returns the lower-case host of a Host header, without port or
// IPv6 brackets.
func hostname(hostport string) string {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}
