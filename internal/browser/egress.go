package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// A launched browser reaches the network only through the egress proxy: a
// loopback HTTP proxy in cdpkit (--proxy-server) that resolves each host
// itself, judges the addresses with the URL policy and connects to one of
// those addresses. So the address judged is the address used: no second
// lookup by Chromium can disagree (DNS rebinding), a lookup that fails or
// is slow refuses, and every request is covered — documents, subresources,
// fetch, WebSockets — not only the documents the Fetch guard sees. The
// guard still judges documents first, to report URL_BLOCKED with the rule;
// both share the policy's lookup cache. See
// docs/decisions/2026-12-02-dns-policy.md.
const (
	// egressDialTimeout bounds resolving and connecting to one upstream.
	egressDialTimeout = 30 * time.Second
	// egressIdle closes a tunnel or upstream connection idle this long.
	egressIdle = 10 * time.Minute
)

// egress is the proxy; see startEgress.
type egress struct {
	ln     net.Listener
	srv    *http.Server
	policy *policy.Policy
	log    *slog.Logger
	proxy  *httputil.ReverseProxy
	// upstream is the user's proxy (egress_upstream.go); nil connects
	// directly. Set before the browser starts, then only read.
	upstream *upstream

	mu       sync.Mutex
	refused  map[string]refusal // guarded by mu; recent refusals by host:port
	attempts map[string]int     // guarded by mu; connections asked for, by host:port
}

type refusal struct {
	err error
	at  time.Time
}

// needsEgress reports whether p has an address rule to enforce: with
// private networks allowed and loopback allowed, every address is.
func needsEgress(p *policy.Policy) bool {
	return !p.AllowPrivateNetworks || p.BlockLoopback
}

// startEgress listens on a loopback port and serves the proxy until close.
func startEgress(p *policy.Policy, logger *slog.Logger) (*egress, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("browser: egress proxy: %w", err)
	}
	e := &egress{ln: ln, policy: p, log: logger, refused: make(map[string]refusal), attempts: make(map[string]int)}
	e.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// A proxy request already has the absolute URL and Host.
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           e.dial,
			DisableCompression:    true,
			MaxIdleConnsPerHost:   6,
			IdleConnTimeout:       egressIdle,
			TLSHandshakeTimeout:   egressDialTimeout,
			ExpectContinueTimeout: time.Second,
		},
		ErrorLog: log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, policy.ErrURLBlocked) {
				// No response at all: Chromium reports a network error
				// rather than rendering a page of ours as the site's.
				panic(http.ErrAbortHandler)
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	e.srv = &http.Server{Handler: e, ReadHeaderTimeout: egressDialTimeout, IdleTimeout: egressIdle,
		ErrorLog: log.New(io.Discard, "", 0)}
	go e.srv.Serve(ln)
	return e, nil
}

// flags are the browser switches that route all traffic through e.
// Chromium sends loopback directly unless told otherwise; that is asked
// for only when the policy blocks loopback. WebRTC may not use UDP around
// the proxy.
func (e *egress) flags() []string {
	f := []string{"--proxy-server=http://" + e.ln.Addr().String(), "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"}
	if e.policy.BlockLoopback || (e.upstream != nil && e.upstream.bypass.proxyLoopback) {
		f = append(f, "--proxy-bypass-list=<-loopback>")
	}
	return f
}

// close stops the proxy and its connections.
func (e *egress) close() {
	e.srv.Close()
	if e.upstream != nil {
		e.upstream.proxy.Transport.(*http.Transport).CloseIdleConnections()
	}
}

// ServeHTTP tunnels CONNECT requests and forwards absolute-form http ones.
// Anything else (a page that found the port and sent an origin-form
// request) gets 400.
func (e *egress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		e.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "cdpkit egress proxy: absolute http URLs only", http.StatusBadRequest)
		return
	}
	if e.upstream.routes(r.URL.Host) {
		e.forwardUpstream(w, r)
		return
	}
	e.proxy.ServeHTTP(w, r)
}

// tunnel answers CONNECT host:port (https, wss and ws) with a byte pipe to
// an address the policy allowed.
func (e *egress) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := e.connect(r.Context(), r.Host)
	if err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, policy.ErrURLBlocked) {
			status = http.StatusForbidden
		}
		http.Error(w, "cdpkit egress proxy: "+err.Error(), status)
		return
	}
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		conn.Close()
		up.Close()
		return
	}
	go pipe(up, conn, buf.Reader)
}

// pipe copies both ways until either side is done, then closes both.
func pipe(up, down net.Conn, pending io.Reader) {
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(up, io.MultiReader(pending, idleReader{down}))
		if c, ok := up.(*net.TCPConn); ok {
			c.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		io.Copy(down, idleReader{up})
		if c, ok := down.(*net.TCPConn); ok {
			c.CloseWrite()
		}
		done <- struct{}{}
	}()
	<-done
	<-done
	up.Close()
	down.Close()
}

// idleReader ends a read that waits longer than egressIdle.
type idleReader struct{ c net.Conn }

func (r idleReader) Read(p []byte) (int, error) {
	r.c.SetReadDeadline(time.Now().Add(egressIdle))
	return r.c.Read(p)
}

// dial resolves and judges host:port with the policy and connects to the
// first judged address that answers.
func (e *egress) dial(ctx context.Context, _, hostport string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, egressDialTimeout)
	defer cancel()
	e.mu.Lock()
	if _, ok := e.attempts[hostport]; ok || len(e.attempts) < maxAttemptHosts {
		e.attempts[hostport]++
	}
	e.mu.Unlock()
	addrs, err := e.judge(ctx, hostport)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var last error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, "tcp", a.String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// judge resolves host:port and returns the addresses the policy allows,
// or the policy's refusal, which it remembers for refusedSince.
func (e *egress) judge(ctx context.Context, hostport string) ([]netip.AddrPort, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", port)
	}
	addrs, err := e.policy.Addrs(ctx, host, port)
	if err != nil {
		e.log.Info("blocked a connection", "host", hostport, "rule", err.Error())
		e.mu.Lock()
		now := time.Now()
		for k, r := range e.refused {
			if now.Sub(r.at) > blockMemory {
				delete(e.refused, k)
			}
		}
		e.refused[hostport] = refusal{err: err, at: now}
		e.mu.Unlock()
		return nil, err
	}
	out := make([]netip.AddrPort, len(addrs))
	for i, a := range addrs {
		out[i] = netip.AddrPortFrom(a, uint16(n))
	}
	return out, nil
}

// maxAttemptHosts bounds the attempts table: a page can name any number
// of hosts.
const maxAttemptHosts = 1024

// attempted returns how many connections the browser asked the proxy for,
// by host:port, allowed or not. It shows what an idle browser reaches
// for on its own (issue #25 item 8).
func (e *egress) attempted() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return maps.Clone(e.attempts)
}

// refusedSince returns the proxy's refusal of host:port since start, or nil.
func (e *egress) refusedSince(hostport string, start time.Time) error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.refused[hostport]
	if !ok || r.at.Before(start) {
		return nil
	}
	return r.err
}
