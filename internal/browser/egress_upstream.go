package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// A user's proxy (--proxy-server) sits behind the egress proxy: Chromium
// still sends everything to the egress proxy, which judges each host with
// the URL policy as before and then, instead of connecting itself, asks
// the upstream proxy to — CONNECT host:port for tunnels, an absolute-form
// request for plain http. The upstream gets the host name, not the
// address cdpkit resolved: proxies filter and resolve by name. Hosts on
// the bypass list are connected to directly.

// upstream is the user's HTTP proxy and the hosts that bypass it.
type upstream struct {
	url    *url.URL
	auth   string // the Proxy-Authorization value, or ""
	bypass bypassList
	proxy  *httputil.ReverseProxy // plain http through the upstream
}

// setUpstream routes e's traffic through the proxy server, if any.
func (e *egress) setUpstream(server string, bypass []string) error {
	if server == "" {
		return nil
	}
	u, err := ParseProxyServer(server)
	if err != nil {
		return err
	}
	up := &upstream{url: u, bypass: parseBypass(bypass)}
	if u.User != nil {
		pass, _ := u.User.Password()
		up.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))
	}
	up.proxy = &httputil.ReverseProxy{
		Rewrite:  e.proxy.Rewrite,
		ErrorLog: e.proxy.ErrorLog,
		Transport: &http.Transport{
			Proxy:                 http.ProxyURL(u),
			DialContext:           (&net.Dialer{Timeout: egressDialTimeout}).DialContext,
			DisableCompression:    true,
			MaxIdleConnsPerHost:   6,
			IdleConnTimeout:       egressIdle,
			TLSHandshakeTimeout:   egressDialTimeout,
			ExpectContinueTimeout: time.Second,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	e.upstream = up
	return nil
}

// routes reports whether a connection to host goes through the upstream.
func (u *upstream) routes(hostport string) bool {
	return u != nil && !u.bypass.match(hostport)
}

// forward sends a plain http request through the upstream proxy, once the
// policy allowed its host.
func (e *egress) forwardUpstream(w http.ResponseWriter, r *http.Request) {
	hostport := r.URL.Host
	if r.URL.Port() == "" {
		hostport = net.JoinHostPort(r.URL.Hostname(), "80")
	}
	if err := e.judgeForUpstream(r.Context(), hostport); err != nil {
		panic(http.ErrAbortHandler) // as the direct path does: a network error, no page of ours
	}
	e.upstream.proxy.ServeHTTP(w, r)
}

// connect opens a tunnel to hostport: through the upstream proxy when it
// routes that host, else directly. The policy judges the host either way.
func (e *egress) connect(ctx context.Context, hostport string) (net.Conn, error) {
	if !e.upstream.routes(hostport) {
		return e.dial(ctx, "tcp", hostport)
	}
	ctx, cancel := context.WithTimeout(ctx, egressDialTimeout)
	defer cancel()
	if err := e.judgeForUpstream(ctx, hostport); err != nil {
		return nil, err
	}
	return e.upstream.connect(ctx, hostport)
}

// judgeForUpstream applies the policy's address rules to hostport before
// the upstream is asked for it. A policy without address rules (private
// networks allowed, loopback not blocked) has nothing to judge, and then a
// host that only the proxy can resolve still loads.
func (e *egress) judgeForUpstream(ctx context.Context, hostport string) error {
	if !needsEgress(e.policy) {
		return nil
	}
	_, err := e.judge(ctx, hostport)
	return err
}

// connect asks the upstream proxy for a tunnel to hostport; ctx bounds the
// handshake.
func (u *upstream) connect(ctx context.Context, hostport string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.url.Host)
	if err != nil {
		return nil, fmt.Errorf("upstream proxy %s: %w", u.url.Host, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	req := "CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n"
	if u.auth != "" {
		req += "Proxy-Authorization: " + u.auth + "\r\n"
	}
	if _, err := c.Write([]byte(req + "\r\n")); err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy %s: %w", u.url.Host, err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream proxy %s: %w", u.url.Host, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, fmt.Errorf("upstream proxy %s answered CONNECT %s with %s", u.url.Host, hostport, resp.Status)
	}
	c.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: c, r: br}, nil
	}
	return c, nil
}

// bufferedConn is a tunnel whose first bytes arrived with the proxy's
// answer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// bypassList is a proxy bypass list in Chromium's syntax (the part cdpkit
// understands): host or host:port (exact), *.domain and .domain (the
// domain's subdomains), *suffix, an IP or CIDR range (hosts written as
// addresses), <local> (names without a dot), * (everything). Loopback
// always bypasses, as in Chromium, unless the list has <-loopback>.
type bypassList struct {
	rules         []string
	prefixes      []netip.Prefix
	local         bool
	proxyLoopback bool // <-loopback>
}

func parseBypass(entries []string) bypassList {
	var l bypassList
	for _, e := range entries {
		for _, r := range strings.FieldsFunc(e, func(c rune) bool { return c == ',' || c == ';' || c == ' ' }) {
			r = strings.ToLower(r)
			if _, rest, ok := strings.Cut(r, "://"); ok {
				r = rest // the scheme is not told apart
			}
			switch {
			case r == "<local>":
				l.local = true
			case r == "<-loopback>":
				l.proxyLoopback = true
			default:
				if p, err := netip.ParsePrefix(r); err == nil {
					l.prefixes = append(l.prefixes, p.Masked())
					continue
				}
				l.rules = append(l.rules, r)
			}
		}
	}
	return l
}

// match reports whether hostport bypasses the upstream.
func (l bypassList) match(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	addr, addrErr := netip.ParseAddr(host)
	isAddr := addrErr == nil
	if !l.proxyLoopback && (host == "localhost" || strings.HasSuffix(host, ".localhost") || (isAddr && addr.IsLoopback())) {
		return true
	}
	if l.local && !isAddr && !strings.Contains(host, ".") {
		return true
	}
	if isAddr {
		for _, p := range l.prefixes {
			if p.Contains(addr.Unmap()) {
				return true
			}
		}
	}
	for _, r := range l.rules {
		rh, rp := r, ""
		if h, p, err := net.SplitHostPort(r); err == nil {
			rh, rp = h, p
		}
		if rp != "" && rp != port {
			continue
		}
		switch {
		case rh == "*":
			return true
		case strings.HasPrefix(rh, "*."), strings.HasPrefix(rh, "."):
			if strings.HasSuffix(host, strings.TrimPrefix(rh, "*")) {
				return true
			}
		case strings.HasPrefix(rh, "*"):
			if strings.HasSuffix(host, rh[1:]) {
				return true
			}
		case rh == host:
			return true
		}
	}
	return false
}
