package browser

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
)

// TestResolveTabOpenedOutside: a tab another client opened a moment ago
// resolves by its id at once, although the live target table may not
// have heard of it yet (a lease takeover does exactly that).
func TestResolveTabOpenedOutside(t *testing.T) {
	t.Parallel()
	ext := startExternal(t)
	b, err := Start(t.Context(), &Options{BrowserURL: fmt.Sprintf("http://127.0.0.1:%d", ext.port), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range 10 {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d/json/new?about:blank", ext.port), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ ID string }
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || got.ID == "" {
			t.Fatalf("/json/new: %v %+v", err, got)
		}
		tab, err := b.Resolve(t.Context(), got.ID)
		if err != nil || tab.ID() != got.ID {
			t.Fatalf("try %d: Resolve(%s) = %v, %v; want the new tab", i, got.ID, tab, err)
		}
	}
}
