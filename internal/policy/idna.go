package policy

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// toASCIIHost maps a host the way the URL parser's domain-to-ASCII step
// does for the spellings that matter to the network rules: full-width
// ASCII (U+FF01–U+FF5E) becomes ASCII, the ideographic and full-width full
// stops (U+3002, U+FF0E, U+FF61) become dots, letters are lower-cased, and
// a label that is still not ASCII is written in punycode (xn--…). Without
// the rest of UTS #46 (NFKC), a rarer spelling yields a name that does not
// resolve, which the policy refuses: it can fail closed, never open.
func toASCIIHost(h string) (string, error) {
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return h, nil
	}
	if !utf8.ValidString(h) {
		return "", errors.New("host is not valid UTF-8")
	}
	mapped := strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case r == 0x3002 || r == 0xFF0E || r == 0xFF61:
			r = '.'
		}
		return unicode.ToLower(r)
	}, h)
	labels := strings.Split(mapped, ".")
	for i, l := range labels {
		if isASCII(l) {
			continue
		}
		p, err := punycode(l)
		if err != nil {
			return "", err
		}
		labels[i] = "xn--" + p
	}
	return strings.Join(labels, "."), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// punycode encodes a label (RFC 3492).
func punycode(label string) (string, error) {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	adapt := func(delta, numPoints int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	runes := []rune(label)
	var out []byte
	for _, r := range runes {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	n, delta, bias := rune(initialN), 0, initialBias
	for h < len(runes) {
		m := rune(0x7fffffff)
		for _, r := range runes {
			if r >= n && r < m {
				m = r
			}
		}
		if int(m-n) > (1<<31-1-delta)/(h+1) {
			return "", errors.New("host label too long to encode")
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, r := range runes {
			if r < n {
				delta++
			}
			if r == n {
				q := delta
				for k := base; ; k += base {
					t := k - bias
					if t < tmin {
						t = tmin
					} else if t > tmax {
						t = tmax
					}
					if q < t {
						break
					}
					out = append(out, digit(t+(q-t)%(base-t)))
					q = (q - t) / (base - t)
				}
				out = append(out, digit(q))
				bias = adapt(delta, h+1, h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(out), nil
}
