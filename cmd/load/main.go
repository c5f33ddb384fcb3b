// Command load measures how many agents one machine carries: at each
// session count (1, 4, 8, 16 and 32 by default) it starts a fresh server of
// each kind — cdpkit serve with one browser, with --isolate-sessions, with
// --browsers 2, and Playwright MCP over its HTTP transport, all on the same
// Chromium — connects that many MCP sessions over streamable HTTP with the
// go-sdk client, and runs in all of them at once 1 warm-up and N timed
// loops of navigate → snapshot → fill → click → screenshot on a loopback
// form page. Servers take turns at each level, so load drift hits all
// alike. It reports p50/p95 per action, errors by code, loops/s, the
// memory of the server's and the browser's processes and what each added
// session costs, and where each server's p95 doubles; -out writes the JSON
// that docs/performance.md's load table is generated from. It is
// `make load`, not a test.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/coreloop"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

func main() {
	home, _ := os.UserHomeDir()
	bin := flag.String("cdpkit", "bin/cdpkit", "cdpkit `binary` to run as `cdpkit serve`")
	chromium := flag.String("chromium", "", "browser `executable` every server runs (default: $CHROMIUM_PATH, else chromium, chromium-browser, google-chrome on PATH)")
	peers := flag.String("peers", filepath.Join(home, ".cache", "cdpkit-bench", "peers"), "npm prefix `directory` Playwright MCP is installed under (make bench-peers)")
	names := flag.String("servers", "cdpkit,cdpkit-isolated,cdpkit-browsers2,playwright-mcp", "comma-separated servers to measure: cdpkit, cdpkit-isolated, cdpkit-browsers2, playwright-mcp")
	counts := flag.String("sessions", "1,4,8,16,32", "comma-separated session counts, ascending; a fresh server for each")
	loops := flag.Int("loops", 5, "timed loops per session, after one warm-up loop")
	quick := flag.Bool("quick", false, "check the harness: sessions 1,4 and 2 loops (overrides -sessions and -loops)")
	callTimeout := flag.Duration("call-timeout", 60*time.Second, "deadline of one tool call")
	budget := flag.Duration("max", 60*time.Minute, "deadline of the whole run")
	out := flag.String("out", "", "`directory` to write load-DATE.json and load-latest.json to (default: print only)")
	flag.Func("cdpkit-flag", "extra `flag` for every cdpkit serve, to compare a change A/B (repeatable)", func(v string) error {
		cdpkitFlags = append(cdpkitFlags, v)
		return nil
	})
	flag.StringVar(&cdpkitPprof, "pprof", "", "CDPKIT_PPROF for the cdpkit servers (one runs at a time): profiles, mutex and block contention on this loopback `address`")
	flag.Parse()
	if *quick {
		*counts, *loops = "1,4", 2
	}
	levels, err := parseLevels(*counts)
	if err != nil || *loops < 1 {
		fmt.Fprintf(os.Stderr, "load: -sessions %q -loops %d: want ascending counts of 1 or more, and 1 loop or more\n", *counts, *loops)
		os.Exit(2)
	}
	explicit := *chromium
	if explicit == "" {
		explicit = os.Getenv("CHROMIUM_PATH")
	}
	exe, err := browser.FindExecutable(explicit)
	if err != nil {
		fmt.Fprintf(os.Stderr, "load: %v\n", err)
		os.Exit(2)
	}
	ks, err := kinds(strings.Split(*names, ","), *bin, exe, *peers)
	if err != nil {
		fmt.Fprintf(os.Stderr, "load: %v\n", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *budget)
	defer cancel()
	rep, err := measureAll(ctx, ks, levels, *loops, exe, *callTimeout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "load: %v\n", err)
		os.Exit(1)
	}
	rep.Quick = *quick
	fmt.Printf("%s\n\n", rep.header())
	rep.writeTable(os.Stdout)
	if *out != "" {
		paths, err := rep.writeJSON(*out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "load: writing results: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("\nwrote %s\n", strings.Join(paths, " "))
	}
}

func parseLevels(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || (len(ns) > 0 && n <= ns[len(ns)-1]) {
			return nil, fmt.Errorf("bad session count %q", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// measureAll runs every level on every server, a fresh server each time,
// the servers taking turns (the order rotating by level).
func measureAll(ctx context.Context, ks []*kind, levels []int, loops int, chromium string, callTimeout time.Duration) (*report, error) {
	scratch, err := os.MkdirTemp("", "cdpkit-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	site := httptest.NewServer(coreloop.Handler())
	defer site.Close()
	rep := &report{Date: time.Now().UTC(), NProc: runtime.NumCPU(), Chromium: chromiumVersion(ctx, chromium),
		Go: runtime.Version(), Loops: loops, Levels: levels, Load: []float64{sysproc.LoadAverage()}}
	for i, n := range levels {
		for j := range ks {
			k := ks[(i+j)%len(ks)]
			start := time.Now()
			lv, err := measure(ctx, k, filepath.Join(scratch, fmt.Sprintf("%s-%d", k.name, n)), site.URL, n, loops, callTimeout)
			if err != nil {
				return nil, err
			}
			r := newRun(k.name, n, lv)
			slog.Info("measured", "server", k.name, "sessions", n, "took", time.Since(start).Round(100*time.Millisecond),
				"loops_per_s", r.LoopsPerS, "p95_all_ms", r.P95["all"], "errors", errorsText(&r), "load", sysproc.LoadAverage())
			rep.Runs = append(rep.Runs, r)
		}
	}
	rep.Load = append(rep.Load, sysproc.LoadAverage())
	for _, k := range ks {
		rep.Servers = append(rep.Servers, serverInfo{Name: k.name, Version: k.version})
	}
	return rep, nil
}

// chromiumVersion runs `<exe> --version`.
func chromiumVersion(ctx context.Context, exe string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, exe, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
