package policy

import "strings"

// Redacted replaces a secret header value in tool output.
const Redacted = "<redacted>"

// secretHeaders carry credentials; their values never reach tool output.
var secretHeaders = map[string]bool{
	"authorization":       true,
	"proxy-authorization": true,
	"cookie":              true,
	"set-cookie":          true,
}

// secretParts mark a header as a credential wherever they appear in its
// name (X-Api-Key, X-Auth-Token, X-Session-Id, …).
var secretParts = []string{"token", "secret", "api-key", "apikey", "password", "session"}

// SecretHeader reports whether a header's value is a credential:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, or a name
// containing token, secret, api-key, apikey, password or session.
func SecretHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if secretHeaders[n] {
		return true
	}
	for _, s := range secretParts {
		if strings.Contains(n, s) {
			return true
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
