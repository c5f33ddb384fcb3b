package policy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// DefaultResolveTimeout bounds the DNS lookup of one host name by
// [Policy.Check] when Policy.ResolveTimeout is zero.
const DefaultResolveTimeout = time.Second

// resolveTTL is how long a lookup is cached; maxCached bounds the cache.
const (
	resolveTTL = 30 * time.Second
	maxCached  = 512
)

// Policy decides which URLs a browser may load as documents. The zero
// value is the default: http, https and about:blank only; private and
// special networks blocked, loopback allowed; no origin lists.
//
// Set the fields before the first Check and do not change them after.
// Check is safe for concurrent use; a Policy must not be copied after
// first use.
type Policy struct {
	// AllowPrivateNetworks lets URLs reach private and special networks
	// (RFC 1918, link-local and cloud metadata, CGNAT, ULA, 0.0.0.0/8,
	// multicast), by address or by a name that resolves to one.
	AllowPrivateNetworks bool
	// BlockLoopback refuses 127.0.0.0/8, ::1 and localhost.
	BlockLoopback bool
	// AllowedOrigins, when not empty, are the only origins allowed. An entry
	// is an origin (https://example.com, http://127.0.0.1:8080), a host
	// (example.com: any scheme and port) or *.example.com (its
	// subdomains). An origin listed here may be on a private network.
	AllowedOrigins []string
	// BlockedOrigins are refused; entries are written as for
	// AllowedOrigins and win over them.
	BlockedOrigins []string
	// Resolve looks up a host name's addresses; nil means the system
	// resolver. A name that does not resolve, or not within
	// ResolveTimeout, is refused: its addresses cannot be judged.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// ResolveTimeout bounds one lookup; zero means DefaultResolveTimeout.
	ResolveTimeout time.Duration
	// FileDirs are the directories whose files file: URLs may open
	// (--allow-file-urls); empty refuses every file: URL. A file is judged
	// with "..", escapes and symlinks resolved.
	FileDirs []string

	mu    sync.Mutex
	cache map[string]cached // guarded by mu
}

type cached struct {
	addrs   []netip.Addr
	expires time.Time
}

// Check returns nil if a browser may load raw as a document, else a
// *URLError wrapping ErrURLBlocked (or ErrInvalidURL) that names the rule
// and the flag lifting it. A file: URL is allowed only inside FileDirs.
// The context bounds a DNS lookup of the host,
// which is itself bounded by ResolveTimeout and cached briefly.
func (p *Policy) Check(ctx context.Context, raw string) error {
	if isFileURL(raw) {
		return p.checkFile(raw)
	}
	t, err := parseURL(raw)
	if err != nil {
		return err
	}
	if t.scheme == "about" {
		return nil
	}
	if matchOrigins(p.BlockedOrigins, t) {
		return blocked(raw, "origin "+t.origin()+" is in --blocked-origins", "open another site")
	}
	listed := matchOrigins(p.AllowedOrigins, t)
	if len(p.AllowedOrigins) > 0 && !listed {
		return blocked(raw, "origin "+t.origin()+" is not in --allowed-origins", "open a site that --allowed-origins lists, or add it there")
	}
	_, err = p.judge(ctx, raw, t, listed)
	return err
}

// Addrs returns the addresses a browser may connect to for host and port
// (a host as Chromium sends it to a proxy: ASCII, an IP literal or a
// name), or a *URLError wrapping ErrURLBlocked. It applies the network
// rules (private networks, loopback) with the exemption of origins listed
// in AllowedOrigins under http or https; origin lists do not otherwise
// apply, since they are about documents. A connection made to one of the
// returned addresses reaches exactly what was judged, whatever a later
// lookup would say.
func (p *Policy) Addrs(ctx context.Context, host, port string) ([]netip.Addr, error) {
	raw := net.JoinHostPort(host, port)
	h, err := canonicalHost(bracket(host))
	if err != nil {
		return nil, blocked(raw, err.Error(), "the browser asked for a malformed host")
	}
	var listed bool
	for _, scheme := range []string{"http", "https"} {
		listed = listed || matchOrigins(p.AllowedOrigins, target{scheme: scheme, host: h, port: port})
	}
	return p.judge(ctx, raw, target{scheme: "https", host: h, port: port}, listed)
}

// bracket puts an IPv6 literal in brackets, as canonicalHost wants it.
func bracket(h string) string {
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		return "[" + h + "]"
	}
	return h
}

// judge resolves t's host and applies the network rules to every address:
// one refused address refuses the URL. It returns the addresses.
func (p *Policy) judge(ctx context.Context, raw string, t target, listed bool) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(t.host); err == nil {
		addrs = []netip.Addr{a}
	} else if t.host == "localhost" || strings.HasSuffix(t.host, ".localhost") {
		// Chromium answers these itself, always with loopback.
		addrs = []netip.Addr{netip.IPv6Loopback(), netip.AddrFrom4([4]byte{127, 0, 0, 1})}
	} else {
		var err error
		if addrs, err = p.lookup(ctx, t.host); err != nil {
			var ue *URLError
			if errors.As(err, &ue) {
				ue.URL = raw
			}
			return nil, err
		}
	}
	for _, a := range addrs {
		switch classify(a) {
		case loopback:
			if p.BlockLoopback && !listed {
				return nil, blocked(raw, p.reaches(t, a, "loopback address"), "loopback is blocked by --block-loopback; start without it to allow")
			}
		case private:
			if !p.AllowPrivateNetworks && !listed {
				return nil, blocked(raw, p.reaches(t, a, "private or special network address"),
					"private networks are blocked by default; start cdpkit with --allow-private-networks, or list the origin in --allowed-origins, to allow")
			}
		}
	}
	return addrs, nil
}

func (p *Policy) reaches(t target, a netip.Addr, what string) string {
	if t.host == a.String() {
		return fmt.Sprintf("host %s is a %s", t.host, what)
	}
	return fmt.Sprintf("host %s resolves to %s, a %s", t.host, a, what)
}

// lookup resolves host through the cache. A lookup that fails or does not
// finish within ResolveTimeout is a refusal (fail closed), and is not
// cached: a timeout may be transient.
func (p *Policy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	now := time.Now()
	p.mu.Lock()
	c, ok := p.cache[host]
	p.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.addrs, nil
	}
	timeout := p.ResolveTimeout
	if timeout <= 0 {
		timeout = DefaultResolveTimeout
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resolve := p.Resolve
	if resolve == nil {
		resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := resolve(lctx, host)
	const hint = "check the host name; if it is right, the network or its DNS is down: retry later"
	switch {
	case err == nil && len(addrs) == 0:
		return nil, unresolved(host, fmt.Sprintf("host %s could not be resolved: no addresses", host), hint)
	case err != nil && ctx.Err() == nil && lctx.Err() != nil:
		return nil, unresolved(host, fmt.Sprintf("host %s did not resolve within %v", host, timeout), hint)
	case err != nil:
		msg := err.Error()
		var de *net.DNSError
		if errors.As(err, &de) {
			msg = de.Err
		}
		return nil, unresolved(host, fmt.Sprintf("host %s could not be resolved: %s", host, msg), hint)
	}
	p.mu.Lock()
	if p.cache == nil || len(p.cache) >= maxCached {
		p.cache = make(map[string]cached)
	}
	p.cache[host] = cached{addrs: addrs, expires: now.Add(resolveTTL)}
	p.mu.Unlock()
	return addrs, nil
}

// matchOrigins reports whether t matches an entry of list.
func matchOrigins(list []string, t target) bool {
	for _, e := range list {
		if matchOrigin(strings.TrimSpace(e), t) {
			return true
		}
	}
	return false
}

func matchOrigin(e string, t target) bool {
	if e == "" {
		return false
	}
	if strings.Contains(e, "://") {
		o, err := parseURL(e)
		return err == nil && o.scheme == t.scheme && o.host == t.host && o.port == t.port
	}
	e = strings.ToLower(strings.TrimSuffix(e, "."))
	if rest, ok := strings.CutPrefix(e, "*."); ok {
		return strings.HasSuffix(t.host, "."+rest)
	}
	if h, err := canonicalHost(e); err == nil {
		e = h
	}
	return e == t.host
}

// ParseOrigins splits a comma-separated origin list and checks each entry.
func ParseOrigins(s string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if strings.Contains(e, "://") {
			t, err := parseURL(e)
			if err != nil || t.scheme == "about" {
				return nil, fmt.Errorf("origin %q: want scheme://host[:port], a host or *.domain", e)
			}
		} else if strings.ContainsAny(e, "/?#@") || (strings.Contains(e, ":") && !strings.HasPrefix(e, "[")) {
			return nil, fmt.Errorf("origin %q: want scheme://host[:port], a host or *.domain", e)
		}
		out = append(out, e)
	}
	return out, nil
}
