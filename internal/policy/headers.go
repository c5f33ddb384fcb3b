package policy

import (
	"fmt"
	"strings"
)

// Redacted replaces a secret header value in tool output.
const Redacted = "<redacted>"

// secretWords mark a header as a credential when one of the words of its
// name (split at '-', '_' and '.') contains them: X-Auth-Token, X-API_KEY,
// Authentication, X-Credential, Cookie2, X-Session-Id, X-Csrf-Token, ….
var secretWords = []string{"auth", "token", "secret", "cred", "passw", "passwd", "pwd", "session", "cookie",
	"signature", "csrf", "xsrf", "bearer", "jwt"}

// SecretHeader reports whether a header's value is a credential, judged by
// its name, case-insensitively: a word of the name (split at '-', '_'
// and '.') that contains auth, token, secret, cred, passw, pwd, session,
// cookie, signature, csrf, xsrf, bearer or jwt, or that is or
// ends in "key" (X-Api-Key, X-Access-Key, apikey). Authorization,
// Proxy-Authorization, Cookie and Set-Cookie are among them.
func SecretHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == ' ' }) {
		if strings.HasSuffix(w, "key") {
			return true
		}
		for _, s := range secretWords {
			if strings.Contains(w, s) {
				return true
			}
		}
	}
	return false
}

// RedactHeaders returns a copy of h with the values of credential headers
// (see [SecretHeader]) replaced by [Redacted], whatever their case. The
// input is not changed.
func RedactHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		if SecretHeader(k) {
			v = Redacted
		}
		out[k] = v
	}
	return out
}

// managedHeaders are request headers the browser sets itself; an extra
// header by one of these names would break framing, routing or the
// connection of every later request, so they cannot be set.
var managedHeaders = map[string]bool{
	"host": true, "content-length": true, "transfer-encoding": true, "connection": true, "keep-alive": true,
	"upgrade": true, "te": true, "trailer": true, "expect": true, "cookie2": true, "proxy-connection": true,
}

// CheckRequestHeader returns an error saying why a header may not be added
// to a browser's requests: a name that is not an HTTP token, a value with a
// control character (CR, LF, NUL…), or a name the browser manages itself
// (Host, Content-Length, Transfer-Encoding, Connection, Keep-Alive,
// Upgrade, TE, Trailer, Expect, Cookie2, Proxy-*).
func CheckRequestHeader(name, value string) error {
	if !isToken(name) {
		return fmt.Errorf("header name %q is not a valid name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)
	}
	n := strings.ToLower(name)
	if managedHeaders[n] || strings.HasPrefix(n, "proxy-") {
		return fmt.Errorf("header %s is set by the browser itself and cannot be replaced", name)
	}
	if err := CheckHeaderValue(value); err != nil {
		return fmt.Errorf("header %s: %w", name, err)
	}
	return nil
}

// CheckHeaderValue refuses a header value (or user agent) with a control
// character other than tab: CR and LF would start a new header.
func CheckHeaderValue(v string) error {
	for _, r := range v {
		if (r < ' ' && r != '\t') || r == 0x7f {
			return fmt.Errorf("value contains the control character %U", r)
		}
	}
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
