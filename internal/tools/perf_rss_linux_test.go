package tools

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// readRSS reads this process's resident set size, in KiB, from /proc.
func readRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS in /proc/self/status")
}

// TestPerformanceTraceRSS traces a page of 5,000 DOM nodes and checks
// that cdpkit's own memory (this process runs the tools as cdpkit does)
// stays within 50 MiB of what it was before: the trace streams to its
// file and through the analysis, never held whole. It runs alone (not in
// parallel), so that no other test's allocations count, and so before
// TestPerformanceTrace, which traces in the parallel phase.
func TestPerformanceTraceRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (records a large trace): skipped by -short")
	}
	base := perfServer(t)
	h := newHarness(t, nil)
	h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q}`, base+"/nodes"))
	debug.FreeOSMemory()
	idle, err := readRSS()
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		peak = idle
	)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				v, _ := readRSS() // a failed read counts as no growth
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	res, err := h.result(t, "performance_trace", `{"durationMs":3000,"timeout_ms":90000}`)
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	data := res.Data.(traceData)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("RSS idle %d KiB, peak while tracing %d KiB (+%.1f MiB); trace %d bytes", idle, peak, float64(peak-idle)/1024, data.Bytes)
	if peak-idle > 50<<10 {
		t.Errorf("RSS grew by %.1f MiB while tracing, over 50 MiB", float64(peak-idle)/1024)
	}
}
