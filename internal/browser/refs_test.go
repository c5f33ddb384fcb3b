package browser

import (
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestRefsOfGoneDocumentsForgotten: a tab that navigates keeps the refs of
// its current documents only (the soak's memory grew with every document
// a tab had ever shown), and a ref of a document that is gone still reads
// as stale, not unknown.
func TestRefsOfGoneDocumentsForgotten(t *testing.T) {
	t.Parallel()
	srv := snapshotServer(t)
	_, tab := newTab(t)
	var first string
	for i := range 3 {
		for _, page := range []string{"/iframes.html", "/list.html"} {
			if _, err := tab.Navigate(t.Context(), srv.URL+page); err != nil {
				t.Fatal(err)
			}
			res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && page == "/iframes.html" {
				first = firstRef(res.Text)
			}
		}
	}
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The iframes' session ends a moment after the navigation that drops
	// them; each snapshot prunes what has gone.
	browsertest.Eventually(t, 30*time.Second, func() error {
		if _, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{}); err != nil {
			return err
		}
		lds, main, err := loaders(t.Context(), s)
		if err != nil {
			return err
		}
		tab.refs.mu.Lock()
		defer tab.refs.mu.Unlock()
		if len(tab.refs.docs) != 1 {
			return fmt.Errorf("the table holds refs of %d documents, want 1 (list.html has no iframes)", len(tab.refs.docs))
		}
		for n, e := range tab.refs.byNum {
			if e.session != s || e.frame != main || e.loader != lds[main] {
				return fmt.Errorf("e%d belongs to a document that is gone", n)
			}
		}
		return nil
	})
	if first == "" {
		t.Fatal("the first snapshot had no ref")
	}
	if _, err := tab.element(t.Context(), first, ""); !errors.Is(err, driver.ErrRefStale) {
		t.Errorf("%s, from the first document: %v, want ErrRefStale", first, err)
	}
}

// firstRef returns the first ref in a snapshot's text.
func firstRef(text string) string {
	return refAtLineStart.FindString(text)
}

var refAtLineStart = regexp.MustCompile(`(?m)\be\d+\b`)
