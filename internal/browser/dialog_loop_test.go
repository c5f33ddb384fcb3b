package browser

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// stormPages: a button whose click opens confirm dialogs without end, and
// a calm page to recover to.
var stormPages = map[string]string{
	"/storm": `<!doctype html><title>storm</title>` +
		`<button style="position:absolute;left:0;top:0;width:200px;height:100px" onclick="for (;;) confirm('again?')">storm</button>`,
	"/calm": `<!doctype html><title>calm</title><p>CALM</p>`,
}

func stormServer(t *testing.T) string {
	t.Helper()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, ok := stormPages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	return srv.URL
}

// TestDialogStormClick checks issue #25 item 7 under --dialogs=accept and
// dismiss: a click whose handler runs for(;;) confirm() ends with
// ErrDialogLoop well before its own deadline (the policy keeps pace with
// the loop, cdpkit notices it and stops the renderer), and a navigation
// then recovers the tab.
func TestDialogStormClick(t *testing.T) {
	t.Parallel()
	base := stormServer(t)
	for _, policy := range []driver.DialogPolicy{driver.DialogsAccept, driver.DialogsDismiss} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			_, tab := newTab(t)
			tab.SetDialogPolicy(policy)
			if _, err := tab.Navigate(t.Context(), base+"/storm"); err != nil {
				t.Fatal(err)
			}
			// A long deadline: the click must end because of the loop,
			// not because of it.
			const deadline = 60 * time.Second
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			start := time.Now()
			_, err := tab.Click(ctx, driver.ClickOptions{Selector: "button"})
			took := time.Since(start)
			t.Logf("click: %v after %v", err, took)
			if !errors.Is(err, driver.ErrDialogLoop) {
				t.Errorf("click into the storm: %v, want ErrDialogLoop", err)
			}
			if ctx.Err() != nil {
				t.Errorf("the click returned only at its deadline (%v)", took)
			}
			res, err := tab.Navigate(t.Context(), base+"/calm")
			if err != nil {
				t.Fatalf("navigating away from the storm: %v", err)
			}
			if res.Title != "calm" {
				t.Errorf("title after the storm = %q, want calm", res.Title)
			}
		})
	}
}
