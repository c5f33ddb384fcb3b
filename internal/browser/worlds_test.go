package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestIsolatedWorldsRemembered: a tab reads each document in one
// hidden-filter world and reuses it; a new document's world is made by the
// browser and known from its events, without a round trip; a remembered
// context that is gone is made again within the same call, so the filter
// still works; a new document gets a new world.
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
		res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Text, "offpage secret") || !strings.Contains(res.Text, "Visible text") {
			t.Fatalf("snapshot:\n%s\nwant the visible text without the off-page one", res.Text)
		}
	}
	// world returns the main frame's hidden world and whether the browser
	// made it (known from events).
	world := func() (runtime.ExecutionContextID, bool) {
		t.Helper()
		_, main, err := loaders(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if id, ok := tab.live.get(s, main); ok {
			return id, true
		}
		tab.worlds.mu.Lock()
		defer tab.worlds.mu.Unlock()
		e, ok := tab.worlds.m[worldKey{s, main, hiddenWorld}]
		if !ok {
			t.Fatalf("no remembered hidden world for the main frame")
		}
		return e.id, false
	}

	if _, err := tab.Navigate(t.Context(), srv.URL); err != nil {
		t.Fatal(err)
	}
	snap()
	first, made := world()
	if !made {
		t.Errorf("a new document's world was not the browser's")
	}
	snap()
	if again, _ := world(); again != first {
		t.Errorf("second snapshot of one document: world %d, want %d kept", again, first)
	}

	// A context that went away without a new document.
	_, main, err := loaders(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	tab.live.mu.Lock()
	tab.live.byFrame[main] = liveWorld{id: 1 << 30}
	tab.live.mu.Unlock()
	snap()
	if id, _ := world(); id == 1<<30 {
		t.Errorf("after a gone context: world %d, want a new context", id)
	}

	if _, err := tab.Navigate(t.Context(), srv.URL); err != nil {
		t.Fatal(err)
	}
	snap()
	if id, made := world(); id == first || !made {
		t.Errorf("a new document: world %d (browser's: %v), want a new one made by the browser (first was %d)", id, made, first)
	}
}
