package firefox

import (
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	fixturepages "github.com/cdpkit/cdpkit/internal/fixtures"
)

// TestClickComposedWidgets is the Chromium test of the same name on
// Firefox: parts of one widget (a track over its input in a shadow root,
// a label drawing a zero-size checkbox) do not cover the control; a
// foreign element does.
func TestClickComposedWidgets(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, fixturepages.Pages())
	tab := newTab(t)
	ctx := t.Context()
	if _, err := tab.Navigate(ctx, srv.URL+"/pointer-composed.html"); err != nil {
		t.Fatal(err)
	}
	snap, err := tab.Snapshot(ctx, driver.SnapshotOptions{Options: snapshotOptions(true)})
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]string{
		`switch "Wi-Fi"`:     `document.getElementById('wifi').shadowRoot.querySelector('input').checked`,
		`switch "Bluetooth"`: `document.getElementById('bt').shadowRoot.querySelector('input').checked`,
		`checkbox "I agree"`: `document.getElementById('terms').checked`,
	}
	lim := driver.EvalLimits{Depth: 2, Items: 10, Chars: 100}
	for what, expr := range checked {
		if _, err := tab.Click(ctx, driver.ClickOptions{Ref: refOf(t, snap.Text, what)}); err != nil {
			t.Errorf("Click(%s) = %v, want it toggled", what, err)
			continue
		}
		if got, err := tab.Evaluate(ctx, "() => "+expr, nil, lim); err != nil || string(got.Value) != "true" {
			t.Errorf("after Click(%s): checked = %v, %v; want true", what, got, err)
		}
	}
	if _, err := tab.Click(ctx, driver.ClickOptions{Selector: "#covered"}); err == nil || !strings.Contains(err.Error(), "span#cookie") {
		t.Errorf("Click(#covered) = %v, want covered by span#cookie", err)
	}
}

// TestClickRefusedSubmit clicks a submit button whose form has an empty
// required field: the result names the field and the browser's message.
func TestClickRefusedSubmit(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, fixturepages.Pages())
	tab := newTab(t)
	ctx := t.Context()
	if _, err := tab.Navigate(ctx, srv.URL+"/shop.html"); err != nil {
		t.Fatal(err)
	}
	res, err := tab.Click(ctx, driver.ClickOptions{Selector: "#subscribe"})
	if err != nil {
		t.Fatal(err)
	}
	if res.NotSubmitted == nil || res.NotSubmitted.Field != "Email" || res.NotSubmitted.Message == "" {
		t.Errorf("NotSubmitted = %+v, want the Email field and its message", res.NotSubmitted)
	}
}
