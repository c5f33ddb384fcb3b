package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPprof: CDPKIT_PPROF serves the heap and goroutine profiles on a
// loopback address, and refuses any other.
func TestPprof(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:6060", "example.com:6060", "6060"} {
		if srv, err := servePprof(addr, io.Discard); err == nil {
			srv.Close()
			t.Errorf("servePprof(%q) served; want it refused", addr)
		}
	}
	var out strings.Builder
	srv, err := servePprof("127.0.0.1:0", &out)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	defer http.DefaultClient.CloseIdleConnections()
	url := strings.TrimSpace(strings.TrimPrefix(out.String(), "cdpkit: serving profiles on "))
	for _, p := range []string{"goroutine?debug=1", "heap?debug=1"} {
		res, err := http.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "profile") {
			t.Errorf("GET %s: %s %.80q", p, res.Status, body)
		}
	}
	// A page of a rebound name, or a foreign page, reads nothing (issue
	// #40 item 15).
	for _, h := range []struct{ host, origin string }{{"evil.example", ""}, {"", "http://evil.example"}} {
		req, _ := http.NewRequest(http.MethodGet, url+"heap?debug=1", nil)
		if h.host != "" {
			req.Host = h.host
		}
		if h.origin != "" {
			req.Header.Set("Origin", h.origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("GET heap with Host %q Origin %q: %s, want 403", h.host, h.origin, res.Status)
		}
	}
}
