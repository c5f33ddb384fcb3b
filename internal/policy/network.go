package policy

import (
	"context"
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
	// resolver. A name that does not resolve is allowed: the browser will
	// fail to load it too.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// ResolveTimeout bounds one lookup; zero means DefaultResolveTimeout.
	ResolveTimeout time.Duration

	mu    sync.Mutex
	cache map[string]cached // guarded by mu
}

type cached struct {
	addrs   []netip.Addr
	expires time.Time
}

// Check returns nil if a browser may load raw as a document, else a
// *URLError wrapping ErrURLBlocked (or ErrInvalidURL) that names the rule
// and the flag lifting it. The context bounds a DNS lookup of the host,
// which is itself bounded by ResolveTimeout and cached briefly.
func (p *Policy) Check(ctx context.Context, raw string) error {
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
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(t.host); err == nil {
		addrs = []netip.Addr{a}
	} else if t.host == "localhost" || strings.HasSuffix(t.host, ".localhost") {
		// Chromium answers these itself, always with loopback.
		addrs = []netip.Addr{netip.IPv6Loopback()}
	} else {
		addrs = p.lookup(ctx, t.host)
	}
	for _, a := range addrs {
		switch classify(a) {
		case loopback:
			if p.BlockLoopback && !listed {
				return blocked(raw, p.reaches(t, a, "loopback address"), "loopback is blocked by --block-loopback; start without it to allow")
			}
		case private:
			if !p.AllowPrivateNetworks && !listed {
				return blocked(raw, p.reaches(t, a, "private or special network address"),
					"private networks are blocked by default; start cdpkit with --allow-private-networks, or list the origin in --allowed-origins, to allow")
			}
		}
	}
	return nil
}

func (p *Policy) reaches(t target, a netip.Addr, what string) string {
	if t.host == a.String() {
		return fmt.Sprintf("host %s is a %s", t.host, what)
	}
	return fmt.Sprintf("host %s resolves to %s, a %s", t.host, a, what)
}

// lookup resolves host through the cache; errors resolve to nothing.
func (p *Policy) lookup(ctx context.Context, host string) []netip.Addr {
	now := time.Now()
	p.mu.Lock()
	c, ok := p.cache[host]
	p.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.addrs
	}
	timeout := p.ResolveTimeout
	if timeout <= 0 {
		timeout = DefaultResolveTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resolve := p.Resolve
	if resolve == nil {
		resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := resolve(ctx, host)
	if err != nil {
		// Not cached: a timeout may be transient.
		return nil
	}
	p.mu.Lock()
	if p.cache == nil || len(p.cache) >= maxCached {
		p.cache = make(map[string]cached)
	}
	p.cache[host] = cached{addrs: addrs, expires: now.Add(resolveTTL)}
	p.mu.Unlock()
	return addrs
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
