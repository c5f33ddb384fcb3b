package policy

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestParseURLHost(t *testing.T) {
	// Each spelling is what the WHATWG URL parser (and so Chromium) reads
	// as the host in the right column; TestGuardSpellings checks Chromium.
	tests := []struct {
		url, host, port string
	}{
		{"http://169.254.169.254/latest", "169.254.169.254", "80"},
		{"http://2852039166/", "169.254.169.254", "80"},
		{"http://0xA9FEA9FE/", "169.254.169.254", "80"},
		{"http://0xa9.0xfe.0xa9.0xfe/", "169.254.169.254", "80"},
		{"http://0251.0376.0251.0376/", "169.254.169.254", "80"},
		{"http://169.254.43518/", "169.254.169.254", "80"},
		{"http://169.16689662/", "169.254.169.254", "80"},
		{"http://10.1/", "10.0.0.1", "80"},
		{"http://127.1/", "127.0.0.1", "80"},
		{"http://0/", "0.0.0.0", "80"},
		{"http://0x/", "0.0.0.0", "80"},
		{"http://169.254.169.254./", "169.254.169.254", "80"},
		{"http://[::ffff:169.254.169.254]/", "::ffff:169.254.169.254", "80"},
		{"http://[::ffff:a9fe:a9fe]/", "::ffff:169.254.169.254", "80"},
		{"http://user@169.254.169.254/", "169.254.169.254", "80"},
		{"http://user:pw@example.com@169.254.169.254/", "169.254.169.254", "80"},
		{"http://example.com\\@169.254.169.254/", "example.com", "80"},
		{"http:\\\\169.254.169.254\\x", "169.254.169.254", "80"},
		{"http:169.254.169.254", "169.254.169.254", "80"},
		{"http:///169.254.169.254", "169.254.169.254", "80"},
		{"  http://169.254.169.254  ", "169.254.169.254", "80"},
		{"ht\ttp://169.254.1\n69.254/", "169.254.169.254", "80"},
		{"HTTP://EXAMPLE.COM.:8080", "example.com", "8080"},
		{"https://%31%36%39.254.169.254/", "169.254.169.254", "443"},
		{"http://example.com:0080/", "example.com", "80"},
		{"http://1.2.3.4.5/", "", ""}, // invalid: five parts ending in a number
		{"http://256.1.1.1/", "", ""}, // invalid: part over 255
		{"http://1.2.3.0x1g/", "1.2.3.0x1g", "80"},
		{"http://4294967296/", "", ""}, // invalid: out of range
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, err := parseURL(tt.url)
			if tt.host == "" {
				if err == nil {
					t.Fatalf("parseURL(%q) = %+v, want an error", tt.url, got)
				}
				return
			}
			if err != nil || got.host != tt.host || got.port != tt.port {
				t.Fatalf("parseURL(%q) = %+v, %v; want host %s port %s", tt.url, got, err, tt.host, tt.port)
			}
		})
	}
}

// fakeDNS resolves a few names, like a network where they point inside.
func fakeDNS(ctx context.Context, host string) ([]netip.Addr, error) {
	switch host {
	case "metadata.test":
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	case "router.test":
		return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("192.168.1.1")}, nil
	case "public.test", "a.example.com":
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	case "loop.test":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	case "xn--mnchen-3ya.test": // münchen.test
		return []netip.Addr{netip.MustParseAddr("10.9.9.9")}, nil
	case "slow.test":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, errors.New("no such host")
}

func TestPolicyCheck(t *testing.T) {
	def := &Policy{Resolve: fakeDNS, ResolveTimeout: 50 * time.Millisecond}
	private := &Policy{Resolve: fakeDNS, AllowPrivateNetworks: true}
	noLoop := &Policy{Resolve: fakeDNS, BlockLoopback: true}
	allow := &Policy{Resolve: fakeDNS, AllowedOrigins: []string{"https://public.test", "*.example.com", "http://10.0.0.5:8080"}}
	block := &Policy{Resolve: fakeDNS, BlockedOrigins: []string{"public.test", "http://127.0.0.1:9"}}
	tests := []struct {
		p    *Policy
		url  string
		want error  // nil, ErrURLBlocked or ErrInvalidURL
		rule string // a substring of the refusal
	}{
		{def, "about:blank", nil, ""},
		{def, "http://127.0.0.1:8080/", nil, ""},
		{def, "http://localhost/", nil, ""},
		{def, "http://[::1]/", nil, ""},
		{def, "https://public.test/", nil, ""},
		{def, "https://93.184.216.34/", nil, ""},
		// A name cdpkit cannot resolve, or not in time, is refused (fail
		// closed): the browser could reach it by a lookup of its own.
		{def, "http://unresolvable.test/", ErrHostUnresolved, "could not be resolved"},
		{def, "file:///etc/passwd", ErrURLBlocked, `scheme "file"`},
		{def, "FILE:///etc/passwd", ErrURLBlocked, `scheme "file"`},
		{def, "javascript:alert(1)", ErrURLBlocked, `scheme "javascript"`},
		{def, "data:text/html,<p>x", ErrURLBlocked, `scheme "data"`},
		{def, "blob:http://127.0.0.1/x", ErrURLBlocked, `scheme "blob"`},
		{def, "chrome://settings", ErrURLBlocked, `scheme "chrome"`},
		{def, "chrome-extension://abc/x.html", ErrURLBlocked, `scheme "chrome-extension"`},
		{def, "view-source:http://127.0.0.1/", ErrURLBlocked, `scheme "view-source"`},
		{def, "devtools://devtools/bundled/inspector.html", ErrURLBlocked, `scheme "devtools"`},
		{def, "ftp://example.com/", ErrURLBlocked, `scheme "ftp"`},
		{def, "ws://127.0.0.1/", ErrURLBlocked, `scheme "ws"`},
		{def, "about:config", ErrURLBlocked, "about:config"},
		{def, "example.com", ErrInvalidURL, ""},
		{def, "", ErrInvalidURL, ""},
		{def, "http://", ErrInvalidURL, ""},
		{def, "http://169.254.169.254/", ErrURLBlocked, "--allow-private-networks"},
		{def, "http://2852039166/", ErrURLBlocked, "169.254.169.254"},
		{def, "http://0xA9FEA9FE/", ErrURLBlocked, "169.254.169.254"},
		{def, "http://0251.0376.0251.0376/", ErrURLBlocked, "169.254.169.254"},
		{def, "http://[::ffff:169.254.169.254]/", ErrURLBlocked, "private"},
		{def, "http://[::ffff:a9fe:a9fe]/", ErrURLBlocked, "private"},
		{def, "http://[64:ff9b::a9fe:a9fe]/", ErrURLBlocked, "private"},
		{def, "http://user@169.254.169.254/", ErrURLBlocked, "private"},
		{def, "http://169.254.169.254./", ErrURLBlocked, "private"},
		{def, "http://10.1/", ErrURLBlocked, "10.0.0.1"},
		{def, "http://10.0.0.1/", ErrURLBlocked, "private"},
		{def, "http://172.16.5.4/", ErrURLBlocked, "private"},
		{def, "http://192.168.0.1/", ErrURLBlocked, "private"},
		{def, "http://100.64.0.1/", ErrURLBlocked, "private"},
		{def, "http://0.0.0.0/", ErrURLBlocked, "private"},
		{def, "http://0/", ErrURLBlocked, "private"},
		{def, "http://224.0.0.1/", ErrURLBlocked, "private"},
		{def, "http://255.255.255.255/", ErrURLBlocked, "private"},
		{def, "http://[fc00::1]/", ErrURLBlocked, "private"},
		{def, "http://[fd12:3456::1]/", ErrURLBlocked, "private"},
		{def, "http://[fe80::1]/", ErrURLBlocked, "private"},
		{def, "http://[::]/", ErrURLBlocked, "private"},
		{def, "http://metadata.test/", ErrURLBlocked, "resolves to 169.254.169.254"},
		{def, "http://router.test/", ErrURLBlocked, "resolves to 192.168.1.1"},
		{def, "http://slow.test/", ErrHostUnresolved, "did not resolve within"},
		// IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0/96) IPv6
		// forms count as the IPv4 address they embed.
		{def, "http://[::a9fe:a9fe]/", ErrURLBlocked, "private"},
		{def, "http://[::ffff:0:a9fe:a9fe]/", ErrURLBlocked, "private"},
		{def, "http://[::10.0.0.1]/", ErrURLBlocked, "private"},
		{noLoop, "http://[::127.0.0.1]/", ErrURLBlocked, "--block-loopback"},
		{noLoop, "http://[::ffff:0:127.0.0.1]/", ErrURLBlocked, "--block-loopback"},
		// Full-width and ideographic spellings, which the browser maps to
		// ASCII (UTS #46) before reading the host.
		{def, "http://\uff11\uff16\uff19\uff0e\uff12\uff15\uff14\uff0e\uff11\uff16\uff19\uff0e\uff12\uff15\uff14/", ErrURLBlocked, "169.254.169.254"},
		{def, "http://169\u3002254\u3002169\u3002254/", ErrURLBlocked, "169.254.169.254"},
		{def, "http://\uff4d\uff45\uff54\uff41\uff44\uff41\uff54\uff41.test/", ErrURLBlocked, "resolves to 169.254.169.254"},
		{def, "http://METADATA\uff0eTEST/", ErrURLBlocked, "resolves to 169.254.169.254"},
		{noLoop, "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/", ErrURLBlocked, "--block-loopback"},
		{private, "http://169.254.169.254/", nil, ""},
		{private, "http://metadata.test/", nil, ""},
		{private, "file:///etc/passwd", ErrURLBlocked, "scheme"},
		{noLoop, "http://127.0.0.1/", ErrURLBlocked, "--block-loopback"},
		{noLoop, "http://127.1/", ErrURLBlocked, "--block-loopback"},
		{noLoop, "http://localhost./", ErrURLBlocked, "--block-loopback"},
		{noLoop, "http://a.localhost/", ErrURLBlocked, "--block-loopback"},
		{noLoop, "http://[::ffff:127.0.0.1]/", ErrURLBlocked, "--block-loopback"},
		{noLoop, "http://loop.test/", ErrURLBlocked, "--block-loopback"},
		{allow, "https://public.test/", nil, ""},
		{allow, "https://public.test:443/x", nil, ""},
		{allow, "http://public.test/", ErrURLBlocked, "not in --allowed-origins"},
		{allow, "https://a.example.com/", nil, ""},
		{allow, "https://example.com/", ErrURLBlocked, "not in --allowed-origins"},
		{allow, "http://10.0.0.5:8080/", nil, ""},
		{allow, "http://10.0.0.5:8081/", ErrURLBlocked, "not in --allowed-origins"},
		{allow, "about:blank", nil, ""},
		{block, "https://public.test/", ErrURLBlocked, "--blocked-origins"},
		{block, "http://PUBLIC.test./", ErrURLBlocked, "--blocked-origins"},
		{block, "http://127.0.0.1:9/", ErrURLBlocked, "--blocked-origins"},
		{block, "http://127.0.0.1:10/", nil, ""},
		// A non-ASCII name is looked up in its punycode (A-label) form.
		{def, "http://M\u00fcnchen.test/", ErrURLBlocked, "xn--mnchen-3ya.test resolves to 10.9.9.9"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := tt.p.Check(t.Context(), tt.url)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			var ue *URLError
			if !errors.Is(err, tt.want) || !errors.As(err, &ue) || ue.Hint == "" {
				t.Fatalf("Check(%q) = %v, want %v with a hint", tt.url, err, tt.want)
			}
			if !strings.Contains(ue.Rule+" "+ue.Hint, tt.rule) {
				t.Errorf("Check(%q) = %q (hint %q), want it to mention %q", tt.url, ue.Rule, ue.Hint, tt.rule)
			}
		})
	}
}

// TestPolicyFailClosed checks that a lookup that fails or does not finish
// in time refuses the URL and is not cached as an answer (issue #25 item 1).
func TestPolicyFailClosed(t *testing.T) {
	calls := 0
	p := &Policy{ResolveTimeout: 20 * time.Millisecond, Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "nosuch.test" {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		calls++
		if calls == 1 {
			<-ctx.Done() // the first answer comes too late
			return nil, ctx.Err()
		}
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}}
	if err := p.Check(t.Context(), "http://late.test/"); !errors.Is(err, ErrURLBlocked) {
		t.Fatalf("Check after a lookup timeout = %v, want ErrURLBlocked", err)
	}
	if err := p.Check(t.Context(), "http://late.test/"); err != nil {
		t.Fatalf("Check after a good lookup = %v, want nil (a timeout is not cached)", err)
	}
	addrs, err := p.Addrs(t.Context(), "late.test", "443")
	if err != nil || len(addrs) != 1 || addrs[0].String() != "93.184.216.34" {
		t.Fatalf("Addrs = %v, %v; want the judged address", addrs, err)
	}
	if _, err := p.Addrs(t.Context(), "nosuch.test", "80"); !errors.Is(err, ErrURLBlocked) {
		t.Fatalf("Addrs of a name that does not resolve = %v, want ErrURLBlocked", err)
	}
}

func TestPolicyResolveCache(t *testing.T) {
	n := 0
	p := &Policy{Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
		n++
		return []netip.Addr{netip.MustParseAddr("10.0.0.1")}, nil
	}}
	for range 3 {
		if err := p.Check(t.Context(), "http://cached.test/"); !errors.Is(err, ErrURLBlocked) {
			t.Fatalf("Check = %v, want ErrURLBlocked", err)
		}
	}
	if n != 1 {
		t.Errorf("resolved %d times, want 1", n)
	}
}

func TestParseOrigins(t *testing.T) {
	got, err := ParseOrigins(" https://a.test, b.test ,*.c.test,,http://127.0.0.1:8080")
	if err != nil || strings.Join(got, "|") != "https://a.test|b.test|*.c.test|http://127.0.0.1:8080" {
		t.Errorf("ParseOrigins = %q, %v", got, err)
	}
	for _, bad := range []string{"file:///x", "a.test/path", "javascript:1"} {
		if _, err := ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) = nil error, want one", bad)
		}
	}
}

// FuzzParseURL checks that the parser never panics and that whatever host it
// finds is refused when it is a special address.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://169.254.169.254/", "http://0xA9FEA9FE/", "http://0251.0376.0251.0376/",
		"http://[::ffff:10.0.0.1]/", "http://u@10.1/", "http:\\\\10.0.0.1", "https://example.com:8080/a?b#c", "about:blank"} {
		f.Add(s)
	}
	p := &Policy{Resolve: fakeDNS}
	f.Fuzz(func(t *testing.T, raw string) {
		tg, err := parseURL(raw)
		perr := p.Check(context.Background(), raw)
		if err != nil {
			if perr == nil {
				t.Fatalf("parseURL(%q) failed (%v) but Check allowed it", raw, err)
			}
			return
		}
		if a, err := netip.ParseAddr(tg.host); err == nil && classify(a) == private && perr == nil {
			t.Fatalf("Check(%q) allowed private host %s", raw, a)
		}
	})
}
