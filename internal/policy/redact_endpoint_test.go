package policy

import "testing"

func TestRedactEndpoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"ws://127.0.0.1:9222/devtools/browser/abc", "ws://127.0.0.1:9222/devtools/browser/abc"},
		{"wss://pool.example/?token=s3cret", "wss://pool.example/?token=<redacted>"},
		{"wss://pool.example/chromium?token=s3cret&stealth&launch=x#frag", "wss://pool.example/chromium?token=<redacted>&stealth&launch=<redacted>"},
		{"http://user:pw@grid:4444/wd/hub", "http://user:<redacted>@grid:4444/wd/hub"},
		{"http://user@grid:4444/", "http://user@grid:4444/"},
		{"://bad url", Redacted},
	} {
		if got := RedactEndpoint(tc.in); got != tc.want {
			t.Errorf("RedactEndpoint(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
