package firefox

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestDialogPolicies: each kind of dialog under each policy is answered by
// cdpkit or left open for the agent, as on Chromium.
func TestDialogPolicies(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>dialogs</title>
<button onclick="alert('hi'); out.textContent = 'after alert'">alert</button>
<button onclick="out.textContent = confirm('sure?') ? 'confirmed' : 'declined'">confirm</button>
<button onclick="out.textContent = 'got ' + prompt('name?', 'def')">prompt</button>
<p id=out></p>`)
	}))
	tests := []struct {
		policy driver.DialogPolicy
		button string
		waits  bool   // left for the agent
		want   string // the page's text once answered (by cdpkit, or accepted with "Ada")
	}{
		{driver.DialogsReport, "alert", false, "after alert"},
		{driver.DialogsReport, "confirm", true, "confirmed"},
		{driver.DialogsReport, "prompt", true, "got Ada"},
		{driver.DialogsAccept, "confirm", false, "confirmed"},
		{driver.DialogsAccept, "prompt", false, "got def"},
		{driver.DialogsDismiss, "confirm", false, "declined"},
		{driver.DialogsDismiss, "prompt", false, "got null"},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy)+"/"+tt.button, func(t *testing.T) {
			t.Parallel()
			tab := newTab(t)
			ctx := t.Context()
			tab.SetDialogPolicy(tt.policy)
			if _, err := tab.Navigate(ctx, srv.URL); err != nil {
				t.Fatal(err)
			}
			snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := tab.Click(ctx, driver.ClickOptions{Ref: refOf(t, snap.Text, `button "`+tt.button+`"`)})
			if err != nil {
				t.Fatalf("Click: %v", err)
			}
			if res.Dialog != tt.waits {
				t.Fatalf("Click: Dialog = %v, want %v", res.Dialog, tt.waits)
			}
			if tt.waits {
				if _, err := tab.HandleDialog(ctx, true, "Ada"); err != nil {
					t.Fatalf("HandleDialog: %v", err)
				}
			}
			if _, err := tab.WaitFor(ctx, driver.WaitCondition{Texts: []string{tt.want}}, 15*time.Second); err != nil {
				t.Fatalf("page after the dialog: %v", err)
			}
			if !tt.waits {
				if d := tab.DialogNote(); d == nil || d.Type != tt.button {
					t.Errorf("DialogNote = %+v, want the %s answered by cdpkit", d, tt.button)
				}
			}
		})
	}
}
