package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"
)

// Units of the figures.
const (
	unitMicros = "µs"
	unitMillis = "ms"
	unitBytes  = "bytes"
	unitMiB    = "MiB"
	unitChars  = "chars"
	unitCount  = "count"
)

// report is one run's results, as printed and as stored in JSON.
type report struct {
	Date     time.Time `json:"date"`
	NProc    int       `json:"nproc"`
	Chromium string    `json:"chromium"`
	Go       string    `json:"go"`
	Cdpkit   string    `json:"cdpkit"` // the server version `cdpkit mcp` reported
	N        int       `json:"n"`      // raw round trips per transport
	Iters    int       `json:"iters"`  // tool calls per tool
	// Load is the 1-minute load average at the start and at the end of
	// the run: on a busy machine, absolute latencies mean little.
	Load    []float64 `json:"load,omitempty"`
	Figures []figure  `json:"figures"`
	// Firefox is the version of the Firefox the Backends rows ran on.
	Firefox string `json:"firefox,omitempty"`
	// Backends are figures measured on Chromium and Firefox side by side;
	// BackendsSkipped says why they are missing, when they are.
	Backends        []backendRow `json:"backends,omitempty"`
	BackendsSkipped string       `json:"backends_skipped,omitempty"`
}

// figure is one measured number. Key is stable across runs, for tools that
// compare result files; Name is for people.
type figure struct {
	Key   string  `json:"key"`
	Name  string  `json:"figure"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

func (r *report) add(key, name string, v float64, unit string) {
	r.Figures = append(r.Figures, figure{Key: key, Name: name, Value: round(v, unit), Unit: unit})
}

func (r *report) addMicros(key, name string, d time.Duration) {
	r.add(key, name, float64(d.Nanoseconds())/1e3, unitMicros)
}

func (r *report) addMillis(key, name string, d time.Duration) {
	r.add(key, name, float64(d.Nanoseconds())/1e6, unitMillis)
}

func (r *report) addMiB(key, name string, bytes int64) {
	r.add(key, name, float64(bytes)/(1<<20), unitMiB)
}

// addFigures lays out every figure, in the order the table shows them.
func (r *report) addFigures(pipe, ws *rawResult, m *mcpResult, binSize int64) {
	for _, t := range []struct {
		key, name, start string
		res              *rawResult
	}{
		{"pipe", "pipe", "launch", pipe},
		{"ws", "websocket", "attach via DevToolsActivePort", ws},
	} {
		r.addMillis("raw."+t.key+".start", "raw "+t.name+": browser.Start ("+t.start+")", t.res.start)
		for _, p := range []int{50, 95, 99} {
			r.addMicros(fmt.Sprintf("raw.%s.evaluate.p%d", t.key, p), fmt.Sprintf("raw %s: Runtime.evaluate(1+1) p%d", t.name, p), t.res.evaluate.p(p))
		}
		r.addMicros("raw."+t.key+".get_targets.p50", "raw "+t.name+": Target.getTargets p50", t.res.getTargets.p(50))
	}

	r.addMillis("mcp.initialize", "mcp: process start → initialize", m.initialize)
	r.addMillis("mcp.cold_start", "mcp: cold start (process start → first new_page done)", m.coldStart)
	r.addMillis("mcp.cold_snapshot", "mcp: cold start (process start → initialize → new_page → first take_snapshot done)", m.coldSnapshot)
	r.add("mcp.tools_list_core", "mcp: tools/list JSON size, core profile (default)", float64(m.coreListChars), unitChars)
	r.add("mcp.tools_list", "mcp: tools/list JSON size, full profile", float64(m.toolsListChars), unitChars)
	r.addMicros("mcp.ping.p50", "mcp: ping p50 (stdio + SDK, no tool)", m.ping.p(50))
	r.addMicros("mcp.list_pages.p50", "mcp: list_pages p50", m.listPages.p(50))
	r.addMicros("mcp.list_pages.p95", "mcp: list_pages p95", m.listPages.p(95))
	r.addMicros("mcp.floor.p50", "raw pipe floor: Runtime.evaluate p50", pipe.evaluate.p(50))
	r.addMicros("mcp.overhead", "mcp: per-tool-call overhead (list_pages p50 − raw pipe floor p50)", m.listPages.p(50)-pipe.evaluate.p(50))
	r.addMicros("mcp.overhead_get_targets", "mcp: list_pages p50 − raw pipe Target.getTargets p50", m.listPages.p(50)-pipe.getTargets.p(50))
	r.addMillis("mcp.navigate_page.p50", "mcp: navigate_page (loopback) p50", m.navigate.p(50))
	r.addMillis("mcp.navigate_page.p95", "mcp: navigate_page (loopback) p95", m.navigate.p(95))
	r.addMillis("mcp.take_screenshot.p50", "mcp: take_screenshot (viewport, png) p50", m.screenshot.p(50))
	r.addMillis("mcp.take_screenshot.p95", "mcp: take_screenshot (viewport, png) p95", m.screenshot.p(95))
	r.addMillis("mcp.take_screenshot_full.p50", "mcp: take_screenshot (full page, png) p50", m.screenshotFull.p(50))
	r.addMillis("mcp.take_screenshot_full.p95", "mcp: take_screenshot (full page, png) p95", m.screenshotFull.p(95))
	r.addMillis("mcp.take_snapshot.p50", "mcp: take_snapshot ("+snapshotPage+".html) p50", m.snapshot.p(50))
	r.addMillis("mcp.take_snapshot.p95", "mcp: take_snapshot ("+snapshotPage+".html) p95", m.snapshot.p(95))
	r.addMillis("mcp.take_snapshot_interactive.p50", "mcp: take_snapshot interactive ("+snapshotPage+".html) p50", m.snapshotI.p(50))
	r.addMillis("mcp.take_snapshot_interactive.p95", "mcp: take_snapshot interactive ("+snapshotPage+".html) p95", m.snapshotI.p(95))
	for _, a := range []struct {
		key, name string
		lat       latency
	}{{"click", "click", m.click}, {"fill", "fill", m.fill}, {"press_key", "press_key (Tab)", m.pressKey}} {
		r.addMillis("mcp."+a.key+".p50", "mcp: "+a.name+" (app.html, with changes) p50", a.lat.p(50))
		r.addMillis("mcp."+a.key+".p95", "mcp: "+a.name+" (app.html, with changes) p95", a.lat.p(95))
	}
	r.add("mcp.changes_chars", "mcp: text of a click result (key lines + changes)", float64(m.changesChars), unitChars)
	for _, sz := range m.snapshotSizes {
		note := ""
		if sz.truncated {
			note = ", truncated at maxChars"
		}
		r.add("snapshot."+sz.page+".chars", "snapshot size: "+sz.page+".html"+note, float64(sz.chars), unitChars)
		r.add("snapshot."+sz.page+".interactive_chars", "snapshot size: "+sz.page+".html, interactive", float64(sz.interactive), unitChars)
	}

	r.add("size.binary_bytes", "cdpkit binary size", float64(binSize), unitBytes)
	r.addMiB("size.binary_mib", "cdpkit binary size", binSize)
	r.addMiB("mem.cdpkit_rss", "cdpkit RSS, idle with a browser open", m.cdpkitRSS)
	r.addMiB("mem.chromium_rss", "Chromium RSS, sum over its processes", m.chromium.RSS)
	r.addMiB("mem.chromium_pss", "Chromium PSS, sum over its processes (shared pages counted once)", m.chromium.PSS)
	r.add("mem.chromium_procs", "Chromium processes", float64(m.chromium.Procs), unitCount)
}

// round keeps the precision a unit is printed with, so that the JSON holds
// what the table shows.
func round(v float64, unit string) float64 {
	switch unit {
	case unitMillis, unitMiB:
		return math.Round(v*100) / 100
	default:
		return math.Round(v)
	}
}

func format(f figure) string {
	switch f.Unit {
	case unitMillis, unitMiB:
		return fmt.Sprintf("%.2f", f.Value)
	default:
		return fmt.Sprintf("%.0f", f.Value)
	}
}

// writeMarkdown prints a header line and a table with a row per figure.
func (r *report) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "cdpkit bench — %s · nproc %d%s · %s · %s · cdpkit %s · n=%d, iters=%d\n\n",
		r.Date.Format("2006-01-02 15:04 MST"), r.NProc, loadText(r.Load), r.Chromium, r.Go, r.Cdpkit, r.N, r.Iters)
	if len(r.Figures) > 0 {
		fmt.Fprintln(w, "| figure | value | unit |")
		fmt.Fprintln(w, "|---|---:|---|")
		for _, f := range r.Figures {
			fmt.Fprintf(w, "| %s | %s | %s |\n", f.Name, format(f), f.Unit)
		}
	}
	r.writeBackends(w)
}

// writeJSON writes the report to dir/YYYY-MM-DD.json, replacing that day's
// file, and to dir/latest.json. It returns the paths written.
func (r *report) writeJSON(dir string) ([]string, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding results: %w", err)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	var paths []string
	for _, name := range []string{r.Date.Format("2006-01-02") + ".json", "latest.json"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return paths, fmt.Errorf("writing results: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// loadText formats a run's load averages for a header line.
func loadText(load []float64) string {
	if len(load) != 2 || load[0] < 0 || load[1] < 0 {
		return ""
	}
	return fmt.Sprintf(" · load average %.1f → %.1f", load[0], load[1])
}
