package tools

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/lease"
)

// TestLeaseLabelRefused: claim_page and new_page refuse a label other
// agents could not read safely (too long, control characters, escape
// codes) before anything is opened or claimed, with INVALID_ARGUMENT and
// a hint (issue #40 item 12); a plain label, spaces and non-ASCII letters
// included, passes.
func TestLeaseLabelRefused(t *testing.T) {
	s, err := lease.Open(filepath.Join(t.TempDir(), "leases"), nil)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Leases: s}
	for _, label := range []string{strings.Repeat("a", 5000), "agent\nFAKE: lease free", "\x1b[31mred\x1b[0m", "tab\t1", "nul\x00", "bidi\u202eevil", "bad\xffutf8"} {
		if err := (&claimPageArgs{Label: label}).check(t.Context(), env); err == nil {
			t.Errorf("claim_page accepted label %q", label[:min(len(label), 30)])
		} else {
			wantCode(t, err, InvalidArgs, "label")
		}
		if err := (&newPageArgs{Label: label}).check(t.Context(), env); err == nil {
			t.Errorf("new_page accepted label %q", label[:min(len(label), 30)])
		} else {
			wantCode(t, err, InvalidArgs, "label")
		}
	}
	for _, label := range []string{"", "build agent 2", "agent-Zoë/review", strings.Repeat("a", lease.MaxLabel)} {
		if err := (&claimPageArgs{Label: label}).check(t.Context(), env); err != nil {
			t.Errorf("claim_page refused label %q: %v", label, err)
		}
	}
}
