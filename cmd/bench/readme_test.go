package main

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite docs/performance.md from bench/results")

// TestREADMEPerformance fails when docs/performance.md (linked from the
// README's Performance section) differs from what the committed results
// files say, so the docs cannot claim what no results file backs.
func TestREADMEPerformance(t *testing.T) {
	const path = "../../docs/performance.md"
	alone, peers, err := loadResults("../../bench/results/latest.json", "../../bench/results/peers-latest.json")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(readme), perfBegin)
	got, after, ok2 := strings.Cut(rest, perfEnd)
	if !ok || !ok2 {
		t.Fatalf("docs/performance.md lacks the markers %q … %q", perfBegin, perfEnd)
	}
	want := performanceSection(alone, peers)
	if *update {
		if err := os.WriteFile(path, []byte(before+perfBegin+want+perfEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Errorf("docs/performance.md is out of date; run go test ./cmd/bench -run TestREADMEPerformance -update\n--- README\n%s--- results\n%s", got, want)
	}
}

func TestRefFor(t *testing.T) {
	for _, tc := range []struct {
		server, snapshot, want string
	}{
		{nameCdpkit, "e1 link \"Home\"\ne7 textbox \"Username\"\ne8 button \"Sign in\"", "e7"},
		{namePlaywright, "- generic [ref=e2]:\n  - textbox \"Username\" [ref=e5]\n  - button \"Sign in\" [ref=e7]", "e5"},
		{nameDevtools, "uid=1_0 RootWebArea \"App\"\n  uid=1_3 textbox \"Username\"\n  uid=1_5 button \"Sign in\"", "1_3"},
	} {
		t.Run(tc.server, func(t *testing.T) {
			if got := refFor(tc.snapshot, "textbox", "Username"); got != tc.want {
				t.Errorf("refFor(textbox Username) = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGoals(t *testing.T) {
	alone := &report{Figures: []figure{
		{Key: "mcp.overhead_get_targets", Value: 800, Unit: unitMicros},
		{Key: "mcp.click.p50", Value: 16, Unit: unitMillis},
	}}
	peers := &peerReport{
		Servers: []peerServer{{Name: nameCdpkit}, {Name: namePlaywright}, {Name: nameDevtools}},
		Figures: []peerFigure{
			{Key: "click.p50", Values: map[string]float64{nameCdpkit: 20, namePlaywright: 100, nameDevtools: 39}},
			{Key: "tools_list_chars", Values: map[string]float64{nameCdpkit: 8000, namePlaywright: 20000, nameDevtools: 30000}},
		},
	}
	got := map[string]bool{}
	for _, g := range goals(alone, peers) {
		got[g.what] = g.met
	}
	for what, want := range map[string]bool{
		"per-tool-call overhead above the raw CDP round trip ≤ 1 ms (list_pages p50 − Target.getTargets p50)": true,
		"warm p50 click ≤ 15 ms":                      false,
		"click p50 ≥ 2× faster than the faster peer":  false, // 20 vs 39: 1.95×
		"core tools/list ≤ 1/2 of the smaller peer's": true,
	} {
		if g, ok := got[what]; !ok || g != want {
			t.Errorf("goal %q: met = %v (present %v), want %v", what, g, ok, want)
		}
	}
	if len(got) != 4 {
		t.Errorf("got %d goals, want 4: %v", len(got), got)
	}
}

func TestResultKey(t *testing.T) {
	text := "url: http://x/a.html\ntitle: Bench page A\nstatus: 200\n\ne1 heading \"title: no\""
	for key, want := range map[string]string{"title": "Bench page A", "status": "200", "truncated": ""} {
		if got := resultKey(text, key); got != want {
			t.Errorf("resultKey(%q) = %q, want %q", key, got, want)
		}
	}
	if got, want := resultBody(text), "e1 heading \"title: no\""; got != want {
		t.Errorf("resultBody = %q, want %q", got, want)
	}
}

// TestWriteBackends: the Firefox figures sit next to Chromium's, and a run
// without Firefox says why they are missing.
func TestWriteBackends(t *testing.T) {
	r := &report{Firefox: "Mozilla Firefox 153.8.0esr"}
	r.addBackendFigures(&backendsResult{
		navigate: [2]latency{{10 * time.Millisecond}, {20 * time.Millisecond}},
		sizes:    [2][]snapshotSize{{{page: "list", chars: 555}}, {{page: "list", chars: 556}}},
	})
	var b strings.Builder
	r.writeMarkdown(&b)
	for _, want := range []string{"| navigate_page (loopback) p50 | 10.00 | 20.00 | ms |", "| snapshot size: list.html | 555 | 556 | chars |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
	skipped := &report{BackendsSkipped: "no Firefox found"}
	b.Reset()
	skipped.writeMarkdown(&b)
	if !strings.Contains(b.String(), "Firefox figures skipped: no Firefox found") {
		t.Errorf("a run without Firefox prints %q, want the reason", b.String())
	}
}
