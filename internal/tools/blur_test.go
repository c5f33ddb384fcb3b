package tools

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestFillLeavesOutTheFieldItLeft: fill's changes name the field it
// filled, not the one that lost focus to it (issue 39: each fill repeated
// the field filled before).
func TestFillLeavesOutTheFieldItLeft(t *testing.T) {
	t.Parallel()
	url := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<title>form</title><label>Email <input id=a></label><label>Name <input id=b></label>`)
	})).URL
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, url))
	h.mustCall(t, "fill", `{"selector":"#a","value":"ada"}`)
	res := h.mustCall(t, "fill", `{"selector":"#b","value":"bob"}`)
	els, _ := res["changes"].(map[string]any)["elements"].(string)
	if strings.Contains(els, `"Email"`) || !strings.Contains(els, `"Name" focused value="bob"`) {
		t.Errorf("second fill's changes = %q, want the Name field alone", els)
	}
}
