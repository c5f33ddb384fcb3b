package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// TestActionMessages checks that an action's result carries what a
// person sees after it: an alert, an aria-live region's text, a toast in
// the top layer, and the validation message of the field that kept a form
// from being submitted. Before, "Add to cart" without a size reported
// only that the button was focused, and the refused submit looked like a
// success.
func TestActionMessages(t *testing.T) {
	base := pointerServer(t)
	t.Parallel()
	h := newHarness(t, nil)
	open := func(t *testing.T) {
		t.Helper()
		tb := h.tab(t, "")
		if _, err := tb.Navigate(t.Context(), base+"/shop.html"); err != nil {
			t.Fatalf("Navigate: %v", err)
		}
		if _, _, err := tb.SnapshotDiff(t.Context(), driver.SnapshotOptions{Options: snapshot.Options{Interactive: true}}); err != nil {
			t.Fatal(err)
		}
	}
	changes := func(data map[string]any) map[string]any { return data["changes"].(map[string]any) }
	messages := func(c map[string]any) string { return fmt.Sprint(c["messages"]) }

	t.Run("alert", func(t *testing.T) {
		open(t)
		c := changes(h.mustCall(t, "click", `{"selector":"#add"}`))
		if !strings.Contains(messages(c), `alert "Please choose a size"`) || c["onlyMessage"] != true {
			t.Errorf("changes = %v, want the alert as the only effect", c)
		}
	})
	t.Run("live region", func(t *testing.T) {
		open(t)
		h.mustCall(t, "select_option", `{"selector":"#size","values":["42"]}`)
		c := changes(h.mustCall(t, "click", `{"selector":"#add"}`))
		if !strings.Contains(messages(c), `status "Added size 42 to your cart"`) {
			t.Errorf("changes = %v, want the live region's text", c)
		}
	})
	t.Run("toast", func(t *testing.T) {
		open(t)
		c := changes(h.mustCall(t, "click", `{"selector":"#save"}`))
		if !strings.Contains(messages(c), `"Saved to your list"`) {
			t.Errorf("changes = %v, want the toast's text", c)
		}
	})
	t.Run("refused submit", func(t *testing.T) {
		open(t)
		data := h.mustCall(t, "click", `{"selector":"#subscribe"}`)
		if got := fmt.Sprint(data["notSubmitted"]); !strings.HasPrefix(got, `"Email": `) || len(got) < len(`"Email": x`) {
			t.Errorf("notSubmitted = %q (result %v), want the Email field and its message", got, data)
		}
		if c := changes(data); c["navigated"] == true {
			t.Errorf("changes = %v, want no navigation", c)
		}
	})
}
