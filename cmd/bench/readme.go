package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// The README's Performance section is generated from the results files
// committed under bench/results; TestREADMEPerformance keeps the two in
// step (go test ./cmd/bench -run TestREADMEPerformance -update).
const (
	perfBegin = "<!-- performance:begin (generated from bench/results/latest.json and peers-latest.json; go test ./cmd/bench -update) -->\n"
	perfEnd   = "<!-- performance:end -->"
)

// loadResults reads a cdpkit bench and a bench-peers results file.
func loadResults(alonePath, peersPath string) (*report, *peerReport, error) {
	var alone report
	var peers peerReport
	for _, f := range []struct {
		path string
		v    any
	}{{alonePath, &alone}, {peersPath, &peers}} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(b, f.v); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.path, err)
		}
	}
	return &alone, &peers, nil
}

// goal is one of issue 8's targets, judged against the results.
type goal struct {
	what     string
	measured string
	met      bool
}

// goals judges each target of issue 8 against the results: the absolute
// ones against the cdpkit bench, the relative ones against bench-peers.
func goals(alone *report, peers *peerReport) []goal {
	var ts []goal
	fig := func(key string) (float64, bool) {
		for _, f := range alone.Figures {
			if f.Key == key {
				return f.Value, true
			}
		}
		return 0, false
	}
	if v, ok := fig("mcp.overhead_get_targets"); ok {
		ts = append(ts, goal{"per-tool-call overhead above the raw CDP round trip ≤ 1 ms (list_pages p50 − Target.getTargets p50)",
			fmt.Sprintf("%.2f ms", v/1e3), v <= 1000})
	}
	for _, t := range []struct {
		key, name string
		max       float64
	}{
		{"mcp.navigate_page.p50", "navigate", 30},
		{"mcp.take_snapshot.p50", "snapshot", 15},
		{"mcp.click.p50", "click", 15},
		{"mcp.fill.p50", "fill", 15},
		{"mcp.take_screenshot.p50", "viewport screenshot", 60},
	} {
		if v, ok := fig(t.key); ok {
			ts = append(ts, goal{fmt.Sprintf("warm p50 %s ≤ %.0f ms", t.name, t.max), fmt.Sprintf("%.2f ms", v), v <= t.max})
		}
	}
	pf := func(key string) *peerFigure {
		for i := range peers.Figures {
			if peers.Figures[i].Key == key {
				return &peers.Figures[i]
			}
		}
		return nil
	}
	// best returns the smaller peer value and cdpkit's over it.
	best := func(f *peerFigure) (string, float64) {
		name, v := "", math.Inf(1)
		for _, p := range peers.peers() {
			if x := f.Values[p]; x > 0 && x < v {
				name, v = p, x
			}
		}
		return name, f.Values[nameCdpkit] / v
	}
	for _, a := range []struct{ key, name string }{
		{"navigate.p50", "navigate"}, {"snapshot.p50", "snapshot"}, {"click.p50", "click"},
		{"fill.p50", "fill"}, {"press_key.p50", "press_key"}, {"screenshot.p50", "viewport screenshot"},
	} {
		if f := pf(a.key); f != nil {
			p, r := best(f)
			ts = append(ts, goal{fmt.Sprintf("%s p50 ≥ 2× faster than the faster peer", a.name),
				fmt.Sprintf("%.2f× (vs %s)", 1/r, p), r <= 0.5})
		}
	}
	if f := pf("snapshot_chars.total"); f != nil {
		r := f.Ratios[namePlaywright]
		ts = append(ts, goal{"snapshot characters ≤ 1/3 of Playwright MCP's on the same pages",
			fmt.Sprintf("%.2f of it", r), r > 0 && r <= 1.0/3})
	}
	if f := pf("tools_list_chars"); f != nil {
		p, r := best(f)
		ts = append(ts, goal{"core tools/list ≤ 1/2 of the smaller peer's", fmt.Sprintf("%.2f of %s's", r, p), r <= 0.5})
	}
	if f := pf("mem.server_rss"); f != nil {
		p, r := best(f)
		ts = append(ts, goal{"cdpkit RSS ≤ 1/4 of the peer's server process", fmt.Sprintf("%.2f of %s's", r, p), r <= 0.25})
	}
	return ts
}

// performanceSection renders the README's generated Performance text.
func performanceSection(alone *report, peers *peerReport) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("Measured on %s, %d cores,\n%s.\n", peers.Date.Format("2006-01-02"), peers.NProc, peers.Chromium)
	w("Every latency drives the server over MCP stdio with the same go-sdk client, warm (after\n")
	w("warm-up). Each header line gives the machine's 1-minute load average at the\n")
	w("start and the end of its run: well above the core count, the machine was busy with other work, the\n")
	w("absolute latencies are inflated, and the interleaved ratios are the figures to read. Reproduce with:\n\n")
	w("```sh\nmake bench        # cdpkit alone: go run ./cmd/bench -cdpkit bin/cdpkit\n")
	w("make bench-peers  # needs node and npm: installs the pinned peers into ~/.cache/cdpkit-bench/peers,\n")
	w("                  # then go run ./cmd/bench -cdpkit bin/cdpkit -peers ~/.cache/cdpkit-bench/peers\n```\n\n")

	w("### Targets\n\n| target | measured | |\n|---|---|---|\n")
	for _, t := range goals(alone, peers) {
		mark := "missed"
		if t.met {
			mark = "met"
		}
		w("| %s | %s | %s |\n", t.what, t.measured, mark)
	}

	w("\n### cdpkit and its peers\n\n")
	w("The three servers run side by side with the same system Chromium (headless, %dx%d, network-quiet\n", viewportW, viewportH)
	w("flags), each through the same scenario with the tool and argument names its own tools/list gives;\n")
	w("calls take turns, so load hits all alike. A ratio below 1 means cdpkit is faster or smaller. Each\n")
	w("server answers an action in its own way (cdpkit with a `changes` section); the \"result text\" rows\n")
	w("show how much each one sends back. Data: `bench/results/peers-%s.json`.\n\n", peers.Date.Format("2006-01-02"))
	w("%s\n\n", peers.header())
	peers.writeTable(&b)

	w("\n### cdpkit alone\n\n")
	w("The raw CDP floor, per-tool figures, sizes and memory. Data: `bench/results/%s.json`.\n\n", alone.Date.Format("2006-01-02"))
	alone.writeMarkdown(&b)
	return b.String()
}
