package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// memory is one measurement of cdpkit and its browser.
type memory struct {
	label         string
	cdpkit        int64   // the cdpkit process's RSS
	settled       int64   // the cdpkit process's RSS settle later, no call in between
	heapInuse     int64   // Go heap in use after a forced GC, from cdpkit's pprof endpoint
	heapRetained  int64   // heap free but not yet returned to the OS (HeapIdle - HeapReleased), after that GC
	stacks        int64   // stack memory in use
	afterGC       int64   // the cdpkit process's RSS after that GC
	cpu           float64 // the cdpkit process's CPU seconds (user + system) so far
	goroutines    int
	chromium      int64 // summed RSS of the browser's processes
	chromiumProcs int
	err           error // reading any of it
}

// settle is how long measure leaves cdpkit quiet before the steady-state
// RSS.
const settle = 3 * time.Second

// freeLoopbackAddr returns a loopback address with a port nothing listens
// on, for cdpkit's CDPKIT_PPROF.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// probe measures cdpkit (pid, profiles served on pprof) and the processes
// whose command line names tmp, its browser's. With a non-empty
// saveDir, it also keeps the heap profile there as <label>.heap for
// `go tool pprof`.
type probe struct {
	pid     int
	tmp     string
	pprof   string
	saveDir string
}

func (p probe) measure(ctx context.Context, label string) memory {
	m := memory{label: label}
	var err error
	m.cdpkit, err = sysproc.RSS(p.pid)
	// Steady state: the RSS once cdpkit has been quiet for a moment, in
	// which a server returns what a burst of work left (its
	// returnHeapWhenQuiet checks every second).
	select {
	case <-time.After(settle):
	case <-ctx.Done():
	}
	if err == nil {
		m.settled, err = sysproc.RSS(p.pid)
	}
	// gc=1 runs a collection first, so the figure is what is still held,
	// not garbage waiting for the next cycle. Twice: the first collection
	// only moves sync.Pool contents to the pools' victim caches, the
	// second frees them.
	_, herr := p.get(ctx, "/debug/pprof/heap?gc=1")
	var heap string
	if herr == nil {
		heap, herr = p.get(ctx, "/debug/pprof/heap?gc=1&debug=1")
	}
	if herr == nil {
		m.heapInuse, herr = memStat(heap, "HeapInuse")
	}
	if herr == nil {
		var idle, released int64
		idle, herr = memStat(heap, "HeapIdle")
		if herr == nil {
			released, herr = memStat(heap, "HeapReleased")
		}
		m.heapRetained = idle - released
	}
	if herr == nil {
		m.stacks, herr = memStat(heap, "Stack") // "# Stack = inuse / sys"
	}
	if err == nil {
		m.afterGC, err = sysproc.RSS(p.pid)
	}
	m.cpu = cpuSeconds(p.pid)
	gor, gerr := p.get(ctx, "/debug/pprof/goroutine?debug=1")
	if gerr == nil {
		_, err := fmt.Sscanf(gor, "goroutine profile: total %d", &m.goroutines)
		gerr = err
	}
	var serr error
	if p.saveDir != "" {
		var bin string
		if bin, serr = p.get(ctx, "/debug/pprof/heap"); serr == nil {
			serr = os.WriteFile(filepath.Join(p.saveDir, label+".heap"), []byte(bin), 0o644)
		}
	}
	m.chromiumProcs, m.chromium = sysproc.MatchingRSS(p.tmp)
	m.err = errJoin(label, err, herr, gerr, serr)
	return m
}

// cpuSeconds is pid's user + system time in seconds, or 0.
func cpuSeconds(pid int) float64 {
	t, _ := sysproc.CPUTicks(pid)
	return float64(t) / sysproc.ClockTicks
}

func errJoin(label string, errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return fmt.Errorf("measuring at %s: %w", label, e)
		}
	}
	return nil
}

func (p probe) get(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+p.pprof+path, nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", path, res.Status)
	}
	return string(b), err
}

// memStat reads "# Name = N" from a debug=1 heap profile's MemStats
// trailer.
func memStat(profile, name string) (int64, error) {
	sc := bufio.NewScanner(strings.NewReader(profile))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# "+name+" = "); ok {
			v, _, _ = strings.Cut(v, " ") // "# Stack = inuse / sys"
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in the heap profile", name)
}

// report prints the measurements as a table and the growth from the
// second (navigation 100) to the last, against the 15 % target.
func report(out io.Writer, ms []memory) {
	mb := func(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
	fmt.Fprintf(out, "%-16s %12s %14s %14s %14s %14s %10s %11s %22s %11s\n", "at", "cdpkit RSS", "RSS 3 s later", "RSS after GC", "cdpkit heap", "heap retained", "stacks", "goroutines", "Chromium tree RSS", "cdpkit CPU")
	for _, m := range ms {
		fmt.Fprintf(out, "%-16s %12s %14s %14s %14s %14s %10s %11d %22s %10.1fs\n", m.label, mb(m.cdpkit), mb(m.settled), mb(m.afterGC), mb(m.heapInuse), mb(m.heapRetained), mb(m.stacks), m.goroutines,
			fmt.Sprintf("%s (%d procs)", mb(m.chromium), m.chromiumProcs), m.cpu)
	}
	if last := ms[len(ms)-1]; last.heapInuse > 0 {
		limit := 3*last.heapInuse + 30<<20
		verdict := "met"
		if last.settled > limit {
			verdict = "missed"
		}
		fmt.Fprintf(out, "cdpkit RSS at %s, %v later: %s against 3 × heap in use + 30 MB = %s: %s\n", last.label, settle, mb(last.settled), mb(limit), verdict)
	}
	if len(ms) < 3 {
		return
	}
	a, b := ms[1], ms[len(ms)-1]
	growth := func(x, y int64) string {
		if x == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%+.1f%%", 100*float64(y-x)/float64(x))
	}
	fmt.Fprintf(out, "growth %s → %s (target < +15%%): cdpkit RSS %s, heap in use %s, goroutines %d → %d, Chromium tree RSS %s\n",
		a.label, b.label, growth(a.cdpkit, b.cdpkit), growth(a.heapInuse, b.heapInuse), a.goroutines, b.goroutines, growth(a.chromium, b.chromium))
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average at the end: %s\n", strings.Join(strings.Fields(string(load))[:3], " "))
	}
}
