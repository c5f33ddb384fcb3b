package policy

import (
	"net/url"
	"strings"
)

// RedactURL returns raw fit for logs and telemetry: the user info, query
// and fragment are replaced by [Redacted] (they carry tokens, session ids
// and typed searches), and so is everything after the scheme of a URL
// that has no host, such as data: and javascript:, except about:. An
// unparseable URL becomes [Redacted].
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Redacted
	}
	if u.Opaque != "" || u.Host == "" && u.Scheme != "" && u.Scheme != "file" {
		if strings.EqualFold(u.Scheme, "about") {
			return "about:" + u.Opaque
		}
		return u.Scheme + ":" + Redacted
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + "://")
	}
	if u.User != nil {
		b.WriteString(Redacted + "@")
	}
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + Redacted)
	}
	if u.Fragment != "" {
		b.WriteString("#" + Redacted)
	}
	return b.String()
}
