package tools

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the tool table in docs/tools.md")

const (
	tableBegin = "<!-- tools:begin (generated from internal/tools; go test ./internal/tools -update) -->\n"
	tableEnd   = "<!-- tools:end -->"
)

// TestREADMEToolTable fails when the tool table in docs/tools.md (linked
// from the README) differs from the registry, so docs cannot drift from
// the tools.
func TestREADMEToolTable(t *testing.T) {
	const path = "../../docs/tools.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(readme), tableBegin)
	_, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok || !ok2 {
		t.Fatalf("docs/tools.md lacks the markers %q … %q", tableBegin, tableEnd)
	}
	want := MarkdownTable(All())
	if *update {
		if err := os.WriteFile(path, []byte(before+tableBegin+want+tableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, _, _ := strings.Cut(rest, tableEnd); got != want {
		t.Errorf("docs/tools.md's tool table is out of date; run go test ./internal/tools -run TestREADMEToolTable -update\n--- docs/tools.md\n%s--- registry\n%s", got, want)
	}
}
