package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestHandleDialogSettles is a regression test (issue #24 bug 1): accepting
// a confirm() whose handler fetches and then sets location must report the
// page it navigated to, with refs of that page that work on the next call,
// never refs of the document being replaced.
func TestHandleDialogSettles(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (waits out dialog settle windows): skipped by -short")
	}
	t.Parallel()
	// The server's 20 ms is the behaviour under test: an answer that takes
	// a moment.
	srv := archiveServer(t, "", 20*time.Millisecond)
	ref := regexp.MustCompile(`e\d+ link "Back to the list"`)
	// 50 runs in all, split over parallel workers, each in a scope
	// (browser context) of its own.
	const workers, runs = 5, 10
	for w := range workers {
		t.Run(fmt.Sprintf("worker %d", w), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil)
			stale := 0
			for i := range runs {
				h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL+"/list"))
				snap, err := h.result(t, "take_snapshot", `{}`)
				if err != nil {
					t.Fatal(err)
				}
				btn := regexp.MustCompile(`e\d+ button "Archive"`).FindString(snap.Text)
				if btn == "" {
					t.Fatalf("no Archive button in %s", snap.Text)
				}
				h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q}`, strings.Fields(btn)[0]))
				res := h.mustCall(t, "handle_dialog", `{"action":"accept"}`)
				ch, _ := res["changes"].(map[string]any)
				if ch == nil || ch["navigated"] != true || !strings.HasSuffix(fmt.Sprint(ch["url"]), "/archived") {
					t.Errorf("run %d: handle_dialog changes = %v, want navigated to /archived", i, ch)
					continue
				}
				link := ref.FindString(fmt.Sprint(ch["elements"]))
				if link == "" {
					t.Errorf("run %d: handle_dialog changes list no link of the new page: %v", i, ch["elements"])
					continue
				}
				if _, err := h.call(t, "click", fmt.Sprintf(`{"uid":%q}`, strings.Fields(link)[0])); err != nil {
					stale++
					t.Errorf("run %d: clicking %s from handle_dialog's changes: %v", i, link, err)
				}
			}
			if stale > 0 {
				t.Errorf("%d of %d refs from handle_dialog's changes failed", stale, runs)
			}
		})
	}
}

// TestHandleDialogSettlesBusyPage: a page whose renderer stays busy after
// the answer, longer than a frame wait, before it fetches and navigates
// (as a loaded machine makes any page) still has its navigation reported
// by handle_dialog.
func TestHandleDialogSettlesBusyPage(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (waits out a busy page): skipped by -short")
	}
	t.Parallel()
	// The busy loop is the behaviour under test: a renderer that does not
	// answer for 1.5 s after the dialog closes.
	srv := archiveServer(t, "const t = Date.now(); while (Date.now() - t < 1500) {}", 0)
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL+"/list"))
	h.mustCall(t, "click", `{"selector":"#arch"}`)
	res := h.mustCall(t, "handle_dialog", `{"action":"accept"}`)
	ch, _ := res["changes"].(map[string]any)
	if ch == nil || ch["navigated"] != true || !strings.HasSuffix(fmt.Sprint(ch["url"]), "/archived") {
		t.Errorf("handle_dialog changes = %v, want navigated to /archived", ch)
	}
}

// archiveServer serves /list, whose Archive button asks confirm() and, once
// accepted, runs busyJS, POSTs to /api/archive (which answers after
// apiDelay) and goes to /archived.
func archiveServer(t *testing.T, busyJS string, apiDelay time.Duration) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/list", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>list</title><button id=arch onclick="archive()">Archive</button>
<script>
async function archive() {
  if (!confirm("Archive this item?")) return;
  %s
  await fetch("/api/archive", {method: "POST"});
  location = "/archived";
}
</script>`, busyJS)
	})
	mux.HandleFunc("/api/archive", func(w http.ResponseWriter, r *http.Request) {
		if apiDelay > 0 {
			time.Sleep(apiDelay) // the behaviour under test (see the callers): a server that takes a moment
		}
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/archived", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>archived</title><p>Archived.</p><a href="/list">Back to the list</a>`)
	})
	return browsertest.ServerHandler(t, mux)
}
