package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's Performance section from bench/results")

// TestREADMEPerformance fails when the README's Performance section differs
// from what the committed results files say, so the README cannot claim
// what no results file backs.
func TestREADMEPerformance(t *testing.T) {
	const path = "../../README.md"
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
		t.Fatalf("README.md lacks the markers %q … %q", perfBegin, perfEnd)
	}
	want := performanceSection(alone, peers)
	if *update {
		if err := os.WriteFile(path, []byte(before+perfBegin+want+perfEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Errorf("README.md's Performance section is out of date; run go test ./cmd/bench -run TestREADMEPerformance -update\n--- README\n%s--- results\n%s", got, want)
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
