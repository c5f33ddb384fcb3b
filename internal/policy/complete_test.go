package policy

import "testing"

func TestCompleteURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"localhost:3000", "http://localhost:3000"},
		{"localhost:3000/app?x=1", "http://localhost:3000/app?x=1"},
		{"localhost", "http://localhost"},
		{"app.localhost:8080/", "http://app.localhost:8080/"},
		{"127.0.0.1:8080/x", "http://127.0.0.1:8080/x"},
		{"[::1]:8080/x", "http://[::1]:8080/x"},
		{"example.com/path", "https://example.com/path"},
		{"example.com", "https://example.com"},
		{"www.example.com:8443#top", "https://www.example.com:8443#top"},
		// Unchanged: a scheme, a bare word, a path, or not a host at all.
		{"https://example.com/", "https://example.com/"},
		{"http://localhost:3000", "http://localhost:3000"},
		{"about:blank", "about:blank"},
		{"javascript:alert(1)", "javascript:alert(1)"},
		{"mailto:a@example.com", "mailto:a@example.com"},
		{"data:text/html,hi", "data:text/html,hi"},
		{"file:///etc/passwd", "file:///etc/passwd"},
		{"intranet", "intranet"},
		{"/relative/path", "/relative/path"},
		{"user@example.com", "user@example.com"},
		{"example..com", "example..com"},
		{"localhost:notaport", "localhost:notaport"},
		{"", ""},
	} {
		if got := CompleteURL(tt.in); got != tt.want {
			t.Errorf("CompleteURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
