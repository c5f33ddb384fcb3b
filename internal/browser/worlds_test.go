package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestIsolatedWorldsRemembered: a tab makes its hidden-filter world once
// per document and reuses it; a remembered context that is gone is made
// again within the same call, so the filter still works; a new document
// gets a new world.
func TestIsolatedWorldsRemembered(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>w</title><p>Visible text</p><div style="position:absolute;left:-10000px">offpage secret</div>`)
	}))
	_, tab := newTab(t)
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	snap := func() {
		t.Helper()
		res, err := tab.Snapshot(t.Context(), SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Text, "offpage secret") || !strings.Contains(res.Text, "Visible text") {
			t.Fatalf("snapshot:\n%s\nwant the visible text without the off-page one", res.Text)
		}
	}
	world := func() (worldKey, worldEntry) {
		t.Helper()
		_, main, err := loaders(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		k := worldKey{s, main, hiddenWorld}
		tab.worlds.mu.Lock()
		defer tab.worlds.mu.Unlock()
		e, ok := tab.worlds.m[k]
		if !ok {
			t.Fatalf("no remembered hidden world for the main frame")
		}
		return k, e
	}

	if _, err := tab.Navigate(t.Context(), srv.URL); err != nil {
		t.Fatal(err)
	}
	snap()
	k, first := world()
	snap()
	if _, again := world(); again != first {
		t.Errorf("second snapshot of one document: world %+v, want %+v kept", again, first)
	}

	// A context that went away without a new document.
	tab.worlds.put(k, first.loader, runtime.ExecutionContextID(1<<30))
	snap()
	if _, e := world(); e.id == 1<<30 || e.loader != first.loader {
		t.Errorf("after a gone context: world %+v, want a new context for loader %s", e, first.loader)
	}

	if _, err := tab.Navigate(t.Context(), srv.URL); err != nil {
		t.Fatal(err)
	}
	snap()
	if _, e := world(); e.loader == first.loader {
		t.Errorf("a new document kept the old document's world %+v", e)
	}
}
