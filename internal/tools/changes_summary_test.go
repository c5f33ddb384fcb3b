package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/snapshot"
)

func TestNewDocumentSummary(t *testing.T) {
	small := snapshot.Changes{Added: []string{`e1 link "Home"`, `e2 button "Go"`}}
	if got, want := newDocumentSummary(small), "+ e1 link \"Home\"\n+ e2 button \"Go\"\n"; got != want {
		t.Errorf("small page: got %q, want %q", got, want)
	}
	var big snapshot.Changes
	for i := range 34 {
		role := []string{"link", "button", "textbox"}[i%3]
		big.Added = append(big.Added, fmt.Sprintf("e%d %s \"Element number %d\"", i+1, role, i+1))
	}
	got := newDocumentSummary(big)
	if len(got) > 400 {
		t.Errorf("summary of 34 elements is %d chars, want ≤ 400:\n%s", len(got), got)
	}
	if !strings.HasPrefix(got, "+ e1 link \"Element number 1\"\n") {
		t.Errorf("summary does not start with the first element:\n%s", got)
	}
	if !strings.Contains(got, "more elements (") || !strings.HasSuffix(got, "take_snapshot for the page\n") {
		t.Errorf("summary lacks the count or the hint:\n%s", got)
	}
	t.Logf("%d chars:\n%s", len(got), got)
}
