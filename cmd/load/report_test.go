package main

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite docs/performance.md's load section from bench/results/load-latest.json")

// TestPerformanceLoad fails when docs/performance.md's load section differs
// from what bench/results/load-latest.json says.
func TestPerformanceLoad(t *testing.T) {
	const path = "../../docs/performance.md"
	b, err := os.ReadFile("../../bench/results/load-latest.json")
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), docBegin)
	got, after, ok2 := strings.Cut(rest, docEnd)
	if !ok || !ok2 {
		t.Fatalf("docs/performance.md lacks the markers %q … %q", docBegin, docEnd)
	}
	want := docSection(&r)
	if *update {
		if err := os.WriteFile(path, []byte(before+docBegin+want+docEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Errorf("docs/performance.md is out of date; run go test ./cmd/load -run TestPerformanceLoad -update\n--- doc\n%s--- results\n%s", got, want)
	}
}

// TestPerAddedAndKnee: memory per added session is measured against the
// server's smallest level, and the knee is the first level whose p95
// passes twice that level's.
func TestPerAddedAndKnee(t *testing.T) {
	r := &report{Levels: []int{1, 4, 8}, Runs: []run{
		{Server: "a", Sessions: 1, P95: map[string]float64{"all": 100}, BrowserPSS: 300},
		{Server: "a", Sessions: 4, P95: map[string]float64{"all": 200}, BrowserPSS: 450},
		{Server: "a", Sessions: 8, P95: map[string]float64{"all": 201}, BrowserPSS: 650},
		{Server: "b", Sessions: 1, P95: map[string]float64{"all": 100}},
		{Server: "b", Sessions: 4, P95: map[string]float64{"all": 150}},
	}}
	pss := func(x *run) float64 { return x.BrowserPSS }
	if _, ok := r.perAdded(&r.Runs[0], pss); ok {
		t.Error("perAdded at the smallest level: ok, want none")
	}
	if got, _ := r.perAdded(&r.Runs[2], pss); got != 50 {
		t.Errorf("perAdded at 8 sessions = %v MiB, want (650-300)/7 = 50", got)
	}
	if n, _, _ := r.knee("a"); n != 8 {
		t.Errorf("knee(a) = %d, want 8 (200 is not more than twice 100)", n)
	}
	if n, base, _ := r.knee("b"); n != 0 || base != 100 {
		t.Errorf("knee(b) = %d (base %v), want none (base 100)", n, base)
	}
}

func TestPct(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 20; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if got := pct(ds, .95); got != 19*time.Millisecond {
		t.Errorf("p95 of 1..20 ms = %v, want 19ms", got)
	}
	if got := pct(ds, .5); got != 10*time.Millisecond {
		t.Errorf("p50 of 1..20 ms = %v, want 10ms", got)
	}
	if got := pct(nil, .5); got != 0 {
		t.Errorf("p50 of none = %v, want 0", got)
	}
}

func TestBracketRef(t *testing.T) {
	snap := "- heading \"Session 3\" [level=1] [ref=e2]\n- textbox \"Name\" [ref=e5]\n- button \"Greet\" [ref=e6] [cursor=pointer]"
	for _, tc := range []struct{ role, name, want string }{
		{"textbox", "Name", "e5"},
		{"button", "Greet", "e6"},
		{"link", "Greet", ""},
	} {
		if got := bracketRef(snap, tc.role, tc.name); got != tc.want {
			t.Errorf("bracketRef(%s %q) = %q, want %q", tc.role, tc.name, got, tc.want)
		}
	}
}
