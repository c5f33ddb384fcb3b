package policy

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// endsInNumber reports whether a host's last label is a number, which
// makes the WHATWG URL parser read the whole host as an IPv4 address.
func endsInNumber(h string) bool {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// ipv4Number parses one part of an IPv4 host: decimal, 0x hex or 0 octal.
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		// Too big is still a number: it fails the range check later.
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 1 << 40, true
		}
		return 0, false
	}
	return n, true
}

// parseIPv4 is the WHATWG IPv4 parser: one to four parts, each decimal, hex
// or octal, the last filling the remaining bytes.
func parseIPv4(h string) (string, error) {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return "", errors.New("IPv4 host with more than four parts")
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return "", errors.New("bad IPv4 host")
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", errors.New("IPv4 host part over 255")
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", errors.New("IPv4 host out of range")
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String(), nil
}

func parseIPv6(s string) (string, error) {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return "", errors.New("bad IPv6 host")
	}
	return a.String(), nil
}

// netClass is what kind of network an address belongs to.
type netClass int

const (
	public   netClass = iota
	loopback          // 127.0.0.0/8, ::1
	private           // private, link-local, shared, multicast and other special-purpose ranges
)

// compat (IPv4-compatible, deprecated) and translated (SIIT) IPv6 ranges
// carry an IPv4 address in their last four bytes.
var (
	compat     = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
)

// special are the ranges no public site lives in: a page reaching them
// reaches the user's machine, network or cloud metadata service.
var special = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",      // "this network"; 0.0.0.0 reaches the local host
		"10.0.0.0/8",     // RFC 1918
		"100.64.0.0/10",  // CGNAT shared space
		"169.254.0.0/16", // link-local, cloud metadata (169.254.169.254)
		"172.16.0.0/12",  // RFC 1918
		"192.0.0.0/24",   // IETF protocol assignments
		"192.168.0.0/16", // RFC 1918
		"198.18.0.0/15",  // benchmarking
		"224.0.0.0/4",    // multicast
		"240.0.0.0/4",    // reserved, and 255.255.255.255 broadcast
		"::/128",         // unspecified
		"fc00::/7",       // unique local (ULA)
		"fe80::/10",      // link-local
		"fec0::/10",      // site-local (deprecated)
		"ff00::/8",       // multicast
		"100::/64",       // discard-only
		"2001:db8::/32",  // documentation
		"64:ff9b:1::/48", // local-use NAT64
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

// classify says which kind of network a reaches. IPv4 addresses embedded in
// IPv6 ones (mapped, IPv4-compatible ::/96, IPv4-translated
// ::ffff:0:0/96, NAT64, 6to4) count as the IPv4 address.
func classify(a netip.Addr) netClass {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case a == netip.IPv6Unspecified() || a == netip.IPv6Loopback():
		case compat.Contains(a), translated.Contains(a):
			return classify(netip.AddrFrom4([4]byte(b[12:16])))
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
			return classify(netip.AddrFrom4([4]byte(b[12:16])))
		case netip.MustParsePrefix("2002::/16").Contains(a):
			return classify(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	if a.IsLoopback() {
		return loopback
	}
	for _, p := range special {
		if p.Contains(a) {
			return private
		}
	}
	return public
}
