package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// networkResult holds what the request log and mocking cost: the size of
// list_network_requests on a page of 300 requests, as an agent gets it
// through `cdpkit mcp`, and what the log and an armed mock rule add to a
// navigation (#14).
type networkResult struct {
	listChars    int // list_network_requests, default page, on the 300-request page
	listAllChars int // every request, on pages of 200
	listTotal    int // requests the log held
	navNoLog     latency
	navLog       latency
	navMock      latency
}

// netSubresources is how many images the navigation-latency page loads.
const netSubresources = 10

// serveNetworkPages serves /many (the page, its favicon and 298 images:
// 300 requests), /nav/N (a page with netSubresources images) and the
// images, on 127.0.0.1, none cached.
func serveNetworkPages() (*httptest.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/many", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<title>many</title>")
		for i := range 298 {
			fmt.Fprintf(&b, `<img src="/img/%d-a-reasonably-long-asset-name-like-real-sites-use.svg?v=%d">`, i, i)
		}
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/nav/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>nav</title><p>a page")
		for i := range netSubresources {
			fmt.Fprintf(w, `<img src="/img/%d.svg?%s">`, i, r.URL.Path)
		}
	})
	mux.HandleFunc("/img/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`)
	})
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})}}
	srv.Start()
	return srv, nil
}

// benchNetwork measures the list size through its own `cdpkit mcp`, and
// the navigation latencies in three browsers driven in process, their
// navigations interleaved so that the machine's load drifts alike for all:
// no request log; the log (as cdpkit runs); the log and a tab rule that
// matches none of the page's requests, so that each is paused and
// continued.
func benchNetwork(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*networkResult, error) {
	srv, err := serveNetworkPages()
	if err != nil {
		return nil, fmt.Errorf("serving the network pages: %w", err)
	}
	defer srv.Close()
	res := &networkResult{}
	if err := networkListSize(ctx, log, cfg, scratch, srv.URL, res); err != nil {
		return nil, err
	}

	names := []string{"no request log", "request log", "request log + armed mock rule"}
	tabs := make([]*browser.Tab, len(names))
	for i := range names {
		b, err := browser.Start(ctx, &browser.Options{ExecPath: cfg.chromium, Logger: log, NoNetworkLog: i == 0})
		if err != nil {
			return nil, err
		}
		defer b.Close()
		if tabs[i], err = b.NewTab(ctx); err != nil {
			return nil, err
		}
		if i == 2 {
			if _, err := tabs[i].AddMock(ctx, driver.MockRule{URL: "*/never-requested*", Action: driver.MockFulfill}); err != nil {
				return nil, fmt.Errorf("arming the mock rule: %w", err)
			}
		}
	}
	ops := make([]op, len(tabs))
	for g, tab := range tabs {
		ops[g] = func(ctx context.Context, i int) error {
			ctx, cancel := context.WithTimeout(ctx, toolTimeout)
			defer cancel()
			_, err := tab.Navigate(ctx, fmt.Sprintf("%s/nav/%d", srv.URL, i))
			return err
		}
	}
	took, err := measure(ctx, 5, max(cfg.iters, 30), ops...)
	if err != nil {
		return nil, fmt.Errorf("navigations: %w", err)
	}
	res.navNoLog, res.navLog, res.navMock = took[0], took[1], took[2]
	for g, name := range names {
		log.Info("navigate p50", "with", name, "ms", took[g].p(50).Milliseconds())
	}
	if reqs, _, err := tabs[1].NetworkRequests(ctx, driver.RequestQuery{}); err != nil || len(reqs) < netSubresources+1 {
		return nil, fmt.Errorf("the log of the last navigation holds %d requests (%v); want the page and its %d images", len(reqs), err, netSubresources)
	}
	return res, nil
}

// networkListSize loads the 300-request page in `cdpkit mcp` and measures
// list_network_requests as the agent reads it.
func networkListSize(ctx context.Context, log *slog.Logger, cfg *config, scratch, base string, res *networkResult) error {
	tmp := filepath.Join(scratch, "network-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	c, err := startChild(ctx, log, cfg, tmp, "full")
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.call(ctx, "navigate_page", map[string]any{"url": base + "/many"}); err != nil {
		return c.withStderr(err)
	}
	// Image loads finish after the load event's answer; wait until the
	// log holds them all, none pending (" … ").
	deadline := time.Now().Add(toolTimeout)
	for {
		text, err := c.call(ctx, "list_network_requests", map[string]any{})
		if err != nil {
			return c.withStderr(err)
		}
		var head struct{ Total int }
		head.Total, _ = strconv.Atoi(resultKey(text, "total"))
		var rest []string
		for p := range 2 {
			t, err := c.call(ctx, "list_network_requests", map[string]any{"pageSize": 200, "pageIdx": p})
			if err != nil {
				return c.withStderr(err)
			}
			rest = append(rest, t)
		}
		all := strings.Join(rest, "")
		if head.Total >= 299 && !strings.Contains(all, " … ") {
			res.listChars, res.listAllChars, res.listTotal = len([]rune(text)), len([]rune(all)), head.Total
			log.Info("list_network_requests", "requests", head.Total, "chars", res.listChars, "all_chars", res.listAllChars)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the 300-request page: the log holds %d requests or some are pending after %v", head.Total, toolTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// runNetworkOnly is `bench -network`: the network stage alone, printed.
func runNetworkOnly(ctx context.Context, log *slog.Logger, cfg *config, stdout io.Writer) error {
	scratch, err := newScratch()
	if err != nil {
		return fmt.Errorf("creating the scratch directory: %w", err)
	}
	defer removeScratch(log, scratch)
	if err := os.Setenv("TMPDIR", scratch); err != nil {
		return err
	}
	rep := &report{Date: time.Now().UTC(), NProc: runtime.NumCPU(), Chromium: chromiumVersion(ctx, cfg.chromium), Go: runtime.Version(), Iters: cfg.iters}
	load := sysproc.LoadAverage()
	n, err := benchNetwork(ctx, log, cfg, scratch)
	if err != nil {
		return err
	}
	rep.addNetworkFigures(n)
	rep.Load = []float64{load, sysproc.LoadAverage()}
	rep.writeMarkdown(stdout)
	return nil
}

// addNetworkFigures lays out the network figures.
func (r *report) addNetworkFigures(n *networkResult) {
	r.add("network.list.chars", fmt.Sprintf("network: list_network_requests chars, page of %d requests, default page size", n.listTotal), float64(n.listChars), unitChars)
	r.add("network.list_all.chars", fmt.Sprintf("network: list_network_requests chars, all %d requests (pages of 200)", n.listTotal), float64(n.listAllChars), unitChars)
	name := fmt.Sprintf("network: navigate p50, page + %d images, ", netSubresources)
	r.addMillis("network.nav_no_log.p50", name+"no request log", n.navNoLog.p(50))
	r.addMillis("network.nav_log.p50", name+"request log (as cdpkit runs)", n.navLog.p(50))
	r.addMillis("network.nav_mock.p50", name+"request log + armed mock rule", n.navMock.p(50))
	r.addMillis("network.log_added.p50", "network: added per navigation by the request log (p50 difference)", n.navLog.p(50)-n.navNoLog.p(50))
	r.addMillis("network.mock_added.p50", "network: added per navigation by an armed mock rule (p50 difference)", n.navMock.p(50)-n.navLog.p(50))
}
