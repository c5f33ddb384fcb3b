package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// report is one `make load` run, as printed and as stored in JSON under
// bench/results (load-YYYY-MM-DD.json and load-latest.json).
type report struct {
	Date     time.Time    `json:"date"`
	NProc    int          `json:"nproc"`
	Chromium string       `json:"chromium"`
	Go       string       `json:"go"`
	Loops    int          `json:"loops"` // timed loops per session, after one warm-up loop
	Levels   []int        `json:"levels"`
	Quick    bool         `json:"quick,omitempty"` // -quick: a check of the harness, not a measurement
	Load     []float64    `json:"load,omitempty"`  // 1-minute load average at the start and the end
	Servers  []serverInfo `json:"servers"`
	Runs     []run        `json:"runs"` // by level, then server, in the order measured
}

// serverInfo names one server configuration.
type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// run is one server at one session count.
type run struct {
	Server     string             `json:"server"`
	Sessions   int                `json:"sessions"`
	P50        map[string]float64 `json:"p50_ms"` // by step, and "all"
	P95        map[string]float64 `json:"p95_ms"`
	Calls      int                `json:"calls"`
	Errors     map[string]int     `json:"errors,omitempty"` // by code
	LoopsDone  int                `json:"loops_done"`
	LoopsPerS  float64            `json:"loops_per_s"`
	ServerRSS  float64            `json:"server_rss_mib"`  // the server's processes, the browser's excepted
	BrowserPSS float64            `json:"browser_pss_mib"` // the browser's processes
	Procs      int                `json:"browser_procs"`
	// CPU milliseconds per completed timed loop, of the server's and the
	// browser's processes: less noisy than loops/s on a busy machine.
	ServerCPU  float64 `json:"server_cpu_ms_per_loop"`
	BrowserCPU float64 `json:"browser_cpu_ms_per_loop"`
}

// newRun summarizes a level.
func newRun(server string, n int, lv *level) run {
	r := run{Server: server, Sessions: n, P50: map[string]float64{}, P95: map[string]float64{}, Errors: lv.errors,
		LoopsDone: lv.loopsDone, ServerRSS: mib(lv.server.RSS), BrowserPSS: mib(lv.browser.PSS), Procs: lv.browser.Procs}
	var all []time.Duration
	for _, s := range steps {
		r.P50[s], r.P95[s] = msOf(pct(lv.took[s], .5)), msOf(pct(lv.took[s], .95))
		all = append(all, lv.took[s]...)
	}
	r.P50["all"], r.P95["all"], r.Calls = msOf(pct(all, .5)), msOf(pct(all, .95)), len(all)
	if lv.wall > 0 {
		r.LoopsPerS = math.Round(float64(lv.loopsDone)/lv.wall.Seconds()*100) / 100
	}
	if lv.loopsDone > 0 {
		r.ServerCPU = math.Round(lv.serverCPU*1000/float64(lv.loopsDone)*10) / 10
		r.BrowserCPU = math.Round(lv.browserCPU*1000/float64(lv.loopsDone)*10) / 10
	}
	if len(r.Errors) == 0 {
		r.Errors = nil
	}
	return r
}

// pct returns the p-th quantile of ds (nearest rank), 0 for none.
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(float64(len(s))*p)) - 1
	return s[max(0, min(i, len(s)-1))]
}

func msOf(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/100) / 10 }

func mib(b int64) float64 { return math.Round(float64(b)/(1<<20)*10) / 10 }

// find returns server's run at n sessions.
func (r *report) find(server string, n int) *run {
	for i := range r.Runs {
		if r.Runs[i].Server == server && r.Runs[i].Sessions == n {
			return &r.Runs[i]
		}
	}
	return nil
}

// perAdded is what each session past the first added to f: the level's
// value minus the same server's at its smallest level, over the sessions
// between them. ok is false at the smallest level or without one.
func (r *report) perAdded(x *run, f func(*run) float64) (float64, bool) {
	base := r.find(x.Server, r.Levels[0])
	if base == nil || x.Sessions <= base.Sessions {
		return 0, false
	}
	return (f(x) - f(base)) / float64(x.Sessions-base.Sessions), true
}

// knee returns the first level at which server's p95 over all calls passes
// twice its p95 at the smallest level, or 0 when none does.
func (r *report) knee(server string) (n int, base, at float64) {
	b := r.find(server, r.Levels[0])
	if b == nil {
		return 0, 0, 0
	}
	for _, l := range r.Levels[1:] {
		if x := r.find(server, l); x != nil && x.P95["all"] > 2*b.P95["all"] {
			return l, b.P95["all"], x.P95["all"]
		}
	}
	return 0, b.P95["all"], 0
}

// header is the line above the table: when, where, what.
func (r *report) header() string {
	var v []string
	for _, s := range r.Servers {
		v = append(v, s.Name+" "+s.Version)
	}
	load := ""
	if len(r.Load) == 2 && r.Load[0] >= 0 && r.Load[1] >= 0 {
		load = fmt.Sprintf(" · load average %.1f → %.1f", r.Load[0], r.Load[1])
	}
	quick := ""
	if r.Quick {
		quick = " · -quick (checks the harness; not a measurement)"
	}
	return fmt.Sprintf("make load — %s · nproc %d%s · %s · %s · 1 warm-up + %d timed loops per session%s",
		r.Date.Format("2006-01-02 15:04 MST"), r.NProc, load, r.Chromium, strings.Join(v, " · "), r.Loops, quick)
}

// writeTable prints a row per level and server, then where each server's
// p95 doubles.
func (r *report) writeTable(w io.Writer) {
	fmt.Fprintln(w, "| sessions | server | p50 ms navigate / snapshot / fill / click / screenshot | p95 ms navigate / snapshot / fill / click / screenshot | errors | loops/s | CPU ms per loop, server + browser | server RSS MiB (per added session) | browser PSS MiB (per added session) |")
	fmt.Fprintln(w, "|---:|---|---|---|---|---:|---:|---:|---:|")
	for _, n := range r.Levels {
		for _, s := range r.Servers {
			x := r.find(s.Name, n)
			if x == nil {
				continue
			}
			lat := func(m map[string]float64) string {
				var f []string
				for _, st := range steps {
					f = append(f, fmt.Sprintf("%.0f", m[st]))
				}
				return strings.Join(f, " / ")
			}
			mem := func(get func(*run) float64) string {
				if d, ok := r.perAdded(x, get); ok {
					return fmt.Sprintf("%.0f (%+.1f)", get(x), d)
				}
				return fmt.Sprintf("%.0f", get(x))
			}
			fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %.2f | %.0f + %.0f | %s | %s |\n", n, s.Name, lat(x.P50), lat(x.P95), errorsText(x),
				x.LoopsPerS, x.ServerCPU, x.BrowserCPU, mem(func(x *run) float64 { return x.ServerRSS }), mem(func(x *run) float64 { return x.BrowserPSS }))
		}
	}
	fmt.Fprintf(w, "\nWhere p95 over all calls first passes twice its value at %d session(s):\n\n", r.Levels[0])
	for _, s := range r.Servers {
		switch n, base, at := r.knee(s.Name); {
		case n > 0:
			fmt.Fprintf(w, "- %s: at %d sessions (%.0f ms, against %.0f ms)\n", s.Name, n, at, base)
		case base > 0:
			fmt.Fprintf(w, "- %s: not up to %d sessions (%.0f ms at %d)\n", s.Name, r.Levels[len(r.Levels)-1], base, r.Levels[0])
		}
	}
}

// errorsText is a run's errors by code, or "0".
func errorsText(x *run) string {
	if len(x.Errors) == 0 {
		return "0"
	}
	var codes []string
	for c, k := range x.Errors {
		codes = append(codes, fmt.Sprintf("%s %d", c, k))
	}
	slices.Sort(codes)
	return strings.Join(codes, ", ")
}

// writeJSON writes the report to dir/load-YYYY-MM-DD.json and
// dir/load-latest.json and returns the paths written.
func (r *report) writeJSON(dir string) ([]string, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, name := range []string{"load-" + r.Date.Format("2006-01-02") + ".json", "load-latest.json"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// The load section of docs/performance.md is generated from
// bench/results/load-latest.json; TestPerformanceLoad keeps the two in step
// (go test ./cmd/load -run TestPerformanceLoad -update).
const (
	docBegin = "<!-- load:begin (generated from bench/results/load-latest.json; go test ./cmd/load -update) -->\n"
	docEnd   = "<!-- load:end -->"
)

// docSection renders the generated text.
func docSection(r *report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", r.header())
	r.writeTable(&b)
	fmt.Fprintf(&b, "\nData: `bench/results/load-%s.json`.\n", r.Date.Format("2006-01-02"))
	return b.String()
}
