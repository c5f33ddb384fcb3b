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

// SecretHeader reports whether a header's value is a credential.
func SecretHeader(name string) bool { return secretHeaders[strings.ToLower(strings.TrimSpace(name))] }

// RedactHeaders returns a copy of h with the values of Authorization,
// Proxy-Authorization, Cookie and Set-Cookie replaced by [Redacted],
// whatever their case. The input is not changed.
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
