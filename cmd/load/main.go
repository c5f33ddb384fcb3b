// Command load runs N concurrent HTTP MCP sessions against `cdpkit serve`
// through the core loop (navigate → snapshot → fill → click → screenshot)
// for a fixed number of rounds, on a form page served on loopback, and
// reports per-tool p50/p95, errors by code, cdpkit's RSS and the browser's
// memory per session, and the knee: the first session count whose p95
// passes twice the single-session p95. It is `make load`, not a test.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/coreloop"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

const token = "load-0123456789abcdef0123456789ab"

func main() {
	bin := flag.String("cdpkit", "bin/cdpkit", "cdpkit binary to run as `cdpkit serve`")
	counts := flag.String("sessions", "1,4,8,16", "comma-separated session counts, one run each")
	rounds := flag.Int("rounds", 5, "core-loop rounds per session, after one warm-up round that is not timed")
	browsers := flag.Int("browsers", 1, "cdpkit serve --browsers")
	callTimeout := flag.Duration("call-timeout", 60*time.Second, "deadline of one tool call")
	budget := flag.Duration("max", 20*time.Minute, "deadline of the whole run")
	flag.Parse()
	var ns []int
	for _, f := range strings.Split(*counts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "load: -sessions %q: want counts of 1 or more\n", *counts)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *budget)
	defer cancel()
	site := httptest.NewServer(coreloop.Handler())
	defer site.Close()
	fmt.Printf("# make load: %d rounds of %s per session, cdpkit serve --browsers %d\n", *rounds, strings.Join(coreloop.Steps, " → "), *browsers)
	fmt.Printf("load average at start: %s\n\n", loadavg())
	var results []*result
	for _, n := range ns {
		r, err := run(ctx, *bin, site.URL, n, *rounds, *browsers, *callTimeout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "load: %d sessions: %v\n", n, err)
			os.Exit(1)
		}
		results = append(results, r)
		r.print(os.Stdout)
	}
	fmt.Printf("load average at end: %s\n", loadavg())
	knee(os.Stdout, results)
}

// result is one run's measurements.
type result struct {
	sessions int
	took     map[string][]time.Duration // by tool
	errors   map[string]int             // by code
	wall     time.Duration
	rss      int64 // cdpkit's, after the rounds
	browser  int64 // the browser's processes' PSS, after the rounds
	procs    int
}

func (r *result) all() []time.Duration {
	var all []time.Duration
	for _, d := range r.took {
		all = append(all, d...)
	}
	return all
}

// run starts a cdpkit serve of its own (its own TMPDIR, so its browser's
// processes are those with it on their command line), drives n sessions,
// measures memory while they are open, then stops it.
func run(ctx context.Context, bin, site string, n, rounds, browsers int, callTimeout time.Duration) (*result, error) {
	tmp, err := os.MkdirTemp("", "cdpkit-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, bin, "serve", "--listen", "127.0.0.1:0", "--max-sessions", "0", "--rate-limit", "0",
		"--browsers", strconv.Itoa(browsers))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CDPKIT_TOKEN="+token, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	endpoint := ""
	lines := bufio.NewScanner(stderr)
	urlRE := regexp.MustCompile(`url=(http://\S+)`)
	for endpoint == "" && lines.Scan() {
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			endpoint = m[1]
		}
	}
	go io.Copy(io.Discard, stderr)
	if endpoint == "" {
		return nil, fmt.Errorf("cdpkit serve did not log its URL")
	}

	r := &result{sessions: n, took: map[string][]time.Duration{}, errors: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	ready := make(chan struct{})
	var sessions []*mcp.ClientSession
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
			if err != nil {
				mu.Lock()
				r.errors["CONNECT"]++
				mu.Unlock()
				return
			}
			mu.Lock()
			sessions = append(sessions, cs)
			mu.Unlock()
			<-ready // every session connected: the rounds overlap
			// Round 0 warms up (the lazy browser launch, the first
			// window): its errors count, its latencies do not.
			for round := range rounds + 1 {
				took, err := coreloop.Round(ctx, cs, site, strconv.Itoa(i), callTimeout)
				mu.Lock()
				for j, d := range took {
					if round > 0 && (err == nil || j < len(took)-1) {
						r.took[coreloop.Steps[j]] = append(r.took[coreloop.Steps[j]], d)
					}
				}
				if err != nil {
					r.errors[coreloop.Code(err)]++
				}
				mu.Unlock()
				if ctx.Err() != nil {
					return
				}
			}
		})
	}
	// Wait for the connections, then let the rounds go.
	for {
		mu.Lock()
		k := len(sessions) + r.errors["CONNECT"]
		mu.Unlock()
		if k == n || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond) // a measurement program, not a test
	}
	close(ready)
	wg.Wait()
	r.wall = time.Since(start)
	r.rss, _ = sysproc.RSS(cmd.Process.Pid)
	for _, pid := range sysproc.Matching(tmp) {
		if pss, err := sysproc.PSS(pid); err == nil {
			r.browser += pss
			r.procs++
		}
	}
	for _, cs := range sessions {
		cs.Close()
	}
	return r, ctx.Err()
}

type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultTransport.RoundTrip(r)
}

// pct returns the p-th percentile of ds (nearest rank).
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

func mib(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "## %d session(s): %s wall, load average %s\n\n", r.sessions, r.wall.Round(100*time.Millisecond), loadavg())
	fmt.Fprintln(w, "| tool | calls | p50 ms | p95 ms |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, tool := range coreloop.Steps {
		fmt.Fprintf(w, "| %s | %d | %s | %s |\n", tool, len(r.took[tool]), ms(pct(r.took[tool], .5)), ms(pct(r.took[tool], .95)))
	}
	all := r.all()
	fmt.Fprintf(w, "| all | %d | %s | %s |\n\n", len(all), ms(pct(all, .5)), ms(pct(all, .95)))
	var codes []string
	for c, k := range r.errors {
		codes = append(codes, fmt.Sprintf("%s %d", c, k))
	}
	slices.Sort(codes)
	if len(codes) == 0 {
		codes = []string{"none"}
	}
	fmt.Fprintf(w, "errors: %s\n", strings.Join(codes, ", "))
	fmt.Fprintf(w, "memory: cdpkit RSS %s MiB (%s MiB per session); browser PSS %s MiB over %d processes (%s MiB per session)\n\n",
		mib(r.rss), mib(r.rss/int64(r.sessions)), mib(r.browser), r.procs, mib(r.browser/int64(r.sessions)))
}

// knee reports the first session count whose p95 over all calls is more
// than twice the single-session run's (the first run, when it has one
// session).
func knee(w io.Writer, rs []*result) {
	if len(rs) == 0 || rs[0].sessions != 1 {
		fmt.Fprintln(w, "knee: needs a first run with 1 session")
		return
	}
	base := pct(rs[0].all(), .95)
	for _, r := range rs[1:] {
		if p := pct(r.all(), .95); p > 2*base {
			fmt.Fprintf(w, "knee: %d sessions (p95 %s ms > 2 × single-session p95 %s ms)\n", r.sessions, ms(p), ms(base))
			return
		}
	}
	fmt.Fprintf(w, "knee: not reached up to %d sessions (single-session p95 %s ms)\n", rs[len(rs)-1].sessions, ms(base))
}

// loadavg is the 1, 5 and 15 minute load averages, or "n/a".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}
