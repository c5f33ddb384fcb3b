package firefox

import (
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/fixtures"
)

// TestTypeTextCancelledKeydown: as in Chromium (internal/browser's
// TestTypeTextKeyEvents), a key whose keydown the page cancels has no
// keypress and types nothing; the other keys type as usual.
func TestTypeTextCancelledKeydown(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, fixtures.Pages())
	tab := newTab(t)
	ctx := t.Context()
	if _, err := tab.Navigate(ctx, srv.URL+"/forms-keys.html"); err != nil {
		t.Fatalf("Navigate: %v", err)
	}
	if err := tab.TypeText(ctx, "", "#logged", "xyx"); err != nil {
		t.Fatalf("TypeText: %v", err)
	}
	lim := driver.EvalLimits{Depth: 4, Items: 50, Chars: 4000}
	res, err := tab.Evaluate(ctx, `() => window.keys.join(' ') + '|' + document.getElementById('logged').value`, nil, lim)
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	got := strings.Trim(string(res.Value), `"`)
	want := "keydown:x keyup:x keydown:y keypress:y keyup:y keydown:x keyup:x|y"
	if got != want {
		t.Errorf("the page saw (events|value)\n%s\nwant\n%s", got, want)
	}
}
