package mcpserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRequireHost checks the Host and Origin rules shared by /mcp,
// /metrics and the profiles (issue #40 items 15 and 16): the address the
// connection arrived at is accepted as an IP literal, no other address
// and no name that is not listed.
func TestRequireHost(t *testing.T) {
	t.Parallel()
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.2"), Port: 8765}
	tests := []struct {
		host, origin string
		want         int
	}{
		{"127.0.0.1:8765", "", http.StatusOK},
		{"localhost:8765", "http://localhost:8765", http.StatusOK},
		{"192.0.2.2:8765", "", http.StatusOK},
		{"192.0.2.2:8765", "http://192.0.2.2:8765", http.StatusOK},
		{"[::ffff:192.0.2.2]:8765", "", http.StatusOK},
		{"listed.example", "", http.StatusOK},
		{"192.0.2.3:8765", "", http.StatusForbidden},
		{"0.0.0.0:8765", "", http.StatusForbidden},
		{"rebound.example:8765", "", http.StatusForbidden},
		{"192.0.2.2:8765", "http://rebound.example", http.StatusForbidden},
		{"192.0.2.2:8765", "null", http.StatusForbidden},
	}
	h := RequireHost([]string{"listed.example"}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, tt := range tests {
		r := httptest.NewRequestWithContext(context.WithValue(t.Context(), http.LocalAddrContextKey, net.Addr(local)), http.MethodGet, "/metrics", nil)
		r.Host = tt.host
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.want {
			t.Errorf("Host %q Origin %q: %d, want %d", tt.host, tt.origin, w.Code, tt.want)
		}
	}
}
