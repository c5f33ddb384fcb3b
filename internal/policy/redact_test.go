package policy

import "testing"

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"https://example.com/a/b", "https://example.com/a/b"},
		{"https://example.com/login?user=bob&password=hunter2", "https://example.com/login?<redacted>"},
		{"https://bob:hunter2@example.com/", "https://<redacted>@example.com/"},
		{"https://example.com/cb#access_token=abc", "https://example.com/cb#<redacted>"},
		{"about:blank", "about:blank"},
		{"data:text/html,<b>secret</b>", "data:<redacted>"},
		{"javascript:alert(document.cookie)", "javascript:<redacted>"},
		{"file:///tmp/x.html?q=1", "file:///tmp/x.html?<redacted>"},
		{"http://[::1]:%zz/", "<redacted>"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
