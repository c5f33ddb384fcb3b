package firefox

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	fixturepages "github.com/cdpkit/cdpkit/internal/fixtures"
)

// TestSnapshotPointablesAndNames: what the widget suite found Firefox's
// snapshot lacking. Elements a person clicks although their role says
// nothing of it (an onclick span, a cursor:pointer div, a tabindex tile, a
// contenteditable region) get refs as in Chromium, and a list delegating
// clicks does not; a switch is named by its slotted text, a combobox by
// an element of its own shadow root, and a slider shows its value. Text
// with inline elements in it reads as one line, as in Chromium (a
// MiniWoB++ utterance was cut at each <span>).
func TestSnapshotPointablesAndNames(t *testing.T) {
	t.Parallel()
	fixtures := browsertest.Server(t, fixturepages.Pages())
	own := browsertest.Server(t, testPages)
	tab := newTab(t)
	ctx := t.Context()
	for _, tt := range []struct {
		url        string
		want, lack []string
	}{
		{fixtures.URL + "/clickable.html", []string{
			`clickable "the terms"`, `clickable "the privacy notice"`, `clickable "Show more"`,
			`clickable "★ Weekly report Sales and visits of the last seven days."`,
			`clickable "Focusable tile"`, `clickable "Edit me"`,
		}, []string{`clickable "one`, `clickable "Weekly report"`, `clickable "★"`}},
		{fixtures.URL + "/pointer-composed.html", []string{`switch "Wi-Fi"`, `switch "Bluetooth"`}, nil},
		{own.URL + "/names.html", []string{
			`slider "Maximum price" value="40.00"`, `slider "Volume" value="7"`, `combobox "Plan"`,
		}, []string{`combobox "Choose a plan"`}},
	} {
		if _, err := tab.Navigate(ctx, tt.url); err != nil {
			t.Fatal(err)
		}
		snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{Options: snapshotOptions(true)})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !regexp.MustCompile(`(?m)^\s*e\d+ ` + regexp.QuoteMeta(w) + `( |$)`).MatchString(snap.Text) {
				t.Errorf("%s: no ref for %s in:\n%s", tt.url, w, snap.Text)
			}
		}
		for _, l := range tt.lack {
			if strings.Contains(snap.Text, l) {
				t.Errorf("%s: %s, want none, in:\n%s", tt.url, l, snap.Text)
			}
		}
	}
	if _, err := tab.Navigate(ctx, own.URL+"/names.html"); err != nil {
		t.Fatal(err)
	}
	snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{Options: snapshotOptions(false)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"Enter \"Eq\" and go."`; !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(want) + `$`).MatchString(snap.Text) {
		t.Errorf("no line %s in:\n%s", want, snap.Text)
	}
}
