package browser

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestNetworkLatency measures what the request log and an armed mock rule
// add to a loopback navigation of a page with 10 subresources. It runs
// only with CDPKIT_MEASURE_NETWORK=1:
//
//	CDPKIT_MEASURE_NETWORK=1 CDPKIT_REQUIRE_BROWSER=1 go test -count=1 -run TestNetworkLatency -v ./internal/browser/
func TestNetworkLatency(t *testing.T) {
	if os.Getenv("CDPKIT_MEASURE_NETWORK") == "" {
		t.Skip("set CDPKIT_MEASURE_NETWORK=1 to measure")
	}
	site := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/img/") {
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`)
			return
		}
		fmt.Fprint(w, "<title>x</title><p>x")
		for i := range 10 {
			fmt.Fprintf(w, `<img src="/img/%d.svg?%s">`, i, r.URL.Path)
		}
	}))
	// Three browsers, navigations alternating between them, so that the
	// machine's load drifts alike for all: no request log; the log; the
	// log and a rule that matches none of the page's requests, so that
	// each is paused and continued.
	names := []string{"no request log", "request log", "request log + armed mock rule"}
	tabs := make([]*Tab, len(names))
	for i := range names {
		b, err := Start(t.Context(), &Options{ExecPath: browsertest.ExecPath(t), noNetLog: i == 0})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if tabs[i], err = b.NewTab(t.Context()); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if _, err := tabs[i].AddMock(t.Context(), MockRule{URL: "*/never-requested*", Action: MockFulfill}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ds := make([][]time.Duration, len(names))
	for i := range 65 {
		for g, tab := range tabs {
			start := time.Now()
			if _, err := tab.Navigate(t.Context(), fmt.Sprintf("%s/%d", site.URL, i)); err != nil {
				t.Fatal(err)
			}
			if i >= 5 {
				ds[g] = append(ds[g], time.Since(start))
			}
		}
	}
	p50 := make([]time.Duration, len(names))
	for g, d := range ds {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		p50[g] = d[len(d)/2]
		t.Logf("%s: navigate p50 %v p90 %v (%d runs)", names[g], p50[g], d[len(d)*9/10], len(d))
	}
	t.Logf("added p50: request log %v; armed mock rule on top %v", p50[1]-p50[0], p50[2]-p50[1])
	if n, _, err := tabs[1].NetworkRequests(t.Context(), RequestQuery{}); err != nil || len(n) < 11 {
		t.Errorf("the log of the last navigation has %d requests, %v; want at least the page and its 10 images", len(n), err)
	}
}
