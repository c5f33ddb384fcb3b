package browser

import (
	"errors"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestLastURL checks that a tab keeps the URL its last navigation or
// Location read, and forgets it once the page navigates by itself, here
// within the document (history.pushState), until it is read again.
func TestLastURL(t *testing.T) {
	t.Parallel()
	srv := serveFixtures(t)
	_, tab := newTab(t)
	if _, ok := tab.LastURL(); ok {
		t.Errorf("LastURL of a tab nothing has read = ok, want unknown")
	}
	res, err := tab.Navigate(t.Context(), srv.URL+"/alpha.html")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := tab.LastURL(); !ok || got != res.URL {
		t.Errorf("LastURL after Navigate = %q, %v; want %q, true", got, ok, res.URL)
	}
	if _, err := tab.Evaluate(t.Context(), `() => history.pushState(null, "", "pushed")`, nil, driver.EvalInline); err != nil {
		t.Fatal(err)
	}
	browsertest.Eventually(t, time.Minute, func() error {
		if got, ok := tab.LastURL(); ok {
			return errors.New("LastURL still gives " + got + " after pushState")
		}
		return nil
	})
	loc, err := tab.Location(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := tab.LastURL(); !ok || got != loc.URL || got != srv.URL+"/pushed" {
		t.Errorf("LastURL after Location = %q, %v; want %q, true", got, ok, srv.URL+"/pushed")
	}
}
