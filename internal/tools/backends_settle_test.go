package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestBackendsClickFetchThenNavigate: a click whose handler fetches and
// then sets location reports the navigation in its result, every time,
// on every backend: the action waits for the fetches it set off and the
// navigation they start (on Firefox it returned before the navigation in
// 2 of 5 runs).
func TestBackendsClickFetchThenNavigate(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/start.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Start</title><button onclick="fetch('/api/ok').then(r => r.text()).then(() => location = '/next.html')">Go</button>`)
	})
	mux.HandleFunc("/api/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/next.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Next</title><p>arrived</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const runs = 20
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		missed := 0
		for i := range runs {
			h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/start.html"}`)
			res := h.mustCall(t, "click", `{"selector":"button"}`)
			ch, _ := res["changes"].(map[string]any)
			if ch["navigated"] != true || ch["url"] != srv.URL+"/next.html" {
				missed++
				t.Logf("run %d: click changes = %v, want the navigation to /next.html", i, ch)
			}
		}
		if missed > 0 {
			t.Errorf("%d of %d clicks returned before the navigation their fetch started", missed, runs)
		}
	})
}
