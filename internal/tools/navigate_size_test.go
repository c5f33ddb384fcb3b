package tools

import (
	"fmt"
	"testing"
)

// TestNavigateAnswerStaysShort navigates to the bench's app page four
// ways: a first navigation, the same URL again, a reload, and elsewhere.
// Each answer is a short summary of the new document, whatever came before
// (issue #41 item 3: 1,580 characters on a first navigation, about 1,590
// on the same URL again or a reload, 340 elsewhere).
func TestNavigateAnswerStaysShort(t *testing.T) {
	t.Parallel()
	base := serveFixtures(t)
	h := newHarness(t, nil)
	steps := []struct{ name, args string }{
		{"first navigation", fmt.Sprintf(`{"url":%q}`, base+"/forms-signup.html")},
		{"the same URL again", fmt.Sprintf(`{"url":%q}`, base+"/forms-signup.html")},
		{"reload", `{"type":"reload"}`},
		{"elsewhere", fmt.Sprintf(`{"url":%q}`, base+"/form.html")},
		{"back", `{"type":"back"}`},
	}
	for _, s := range steps {
		// As in an agent's loop, the page was read before it is left.
		if _, err := h.result(t, "take_snapshot", `{}`); err != nil && s.name != "first navigation" {
			t.Fatalf("take_snapshot: %v", err)
		}
		res, err := h.result(t, "navigate_page", s.args)
		if err != nil {
			t.Fatalf("%s: navigate_page %s: %v", s.name, s.args, err)
		}
		text, err := res.Render()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d characters:\n%s", s.name, len(text), text)
		if len(text) > 400 {
			t.Errorf("%s: navigate_page answered %d characters, want ≤ 400", s.name, len(text))
		}
	}
}
