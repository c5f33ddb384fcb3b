package tools

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestPressKeyChanges pins what press_key's changes show after keys that
// change the page in different ways: at once in the key handler, in a
// task the handler queued (a hash route's hashchange handler, a zero-delay
// timer that follows a DOM change), or only the focus.
func TestPressKeyChanges(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>keys</title>
<input id=a aria-label="First"><input id=b aria-label="Second">
<div id=out></div>
<script>
const add = label => { const b = document.createElement('button'); b.textContent = label; out.append(b); };
a.addEventListener('keydown', e => {
  if (e.key === 'x') add('Now');
  if (e.key === 'r') location.hash = '#routed';
  if (e.key === 't') { out.setAttribute('data-busy', '1'); setTimeout(() => add('Later')); }
});
addEventListener('hashchange', () => add('Routed'));
</script>`)
	})
	srv := browsertest.ServerHandler(t, mux)
	tests := []struct {
		key  string
		want string // a line the changes' elements must hold
	}{
		{"x", `button "Now"`},
		{"r", `button "Routed"`},
		{"t", `button "Later"`},
		{"Tab", `textbox "Second" focused`},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, nil)
			h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL+"/keys"))
			h.mustCall(t, "take_snapshot", `{}`)
			data := h.mustCall(t, "press_key", fmt.Sprintf(`{"selector":"#a","key":%q}`, tt.key))
			c, _ := data["changes"].(map[string]any)
			if got := fmt.Sprint(c["elements"]); !strings.Contains(got, tt.want) {
				t.Errorf("press_key %s: changes.elements =\n%s\nwant a line with %s", tt.key, got, tt.want)
			}
		})
	}
}
