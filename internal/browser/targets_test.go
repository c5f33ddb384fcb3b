package browser

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// targetEvent builds a Target.* event as the browser sends it.
func targetEvent(method, id, typ, url string) cdp.Event {
	if method == "Target.targetDestroyed" {
		return cdp.Event{Method: method, Params: []byte(fmt.Sprintf(`{"targetId":%q}`, id))}
	}
	return cdp.Event{Method: method, Params: []byte(fmt.Sprintf(
		`{"targetInfo":{"targetId":%q,"type":%q,"title":"","url":%q,"attached":false,"canAccessOpener":false}}`, id, typ, url))}
}

func TestTargetTable(t *testing.T) {
	tt := newTargetTable()
	ids := func() []string {
		pages, _ := tt.pages()
		slices.SortFunc(pages, func(x, y tabTarget) int { return x.order - y.order })
		var out []string
		for _, p := range pages {
			out = append(out, string(p.info.TargetID)+" "+p.info.URL)
		}
		return out
	}
	tt.handle(targetEvent("Target.targetCreated", "A", "page", "about:blank"))
	tt.handle(targetEvent("Target.targetCreated", "W", "service_worker", "https://x/sw.js"))
	tt.handle(targetEvent("Target.targetCreated", "B", "page", "https://b/"))
	tt.handle(targetEvent("Target.targetInfoChanged", "A", "page", "https://a/"))
	if got, want := ids(), []string{"A https://a/", "B https://b/"}; !slices.Equal(got, want) {
		t.Errorf("pages %v, want %v (workers left out, first-seen order)", got, want)
	}

	gone := tt.destroyed("A")
	tt.handle(targetEvent("Target.targetDestroyed", "A", "", ""))
	select {
	case <-gone:
	default:
		t.Error("destroyed(A) not closed after its targetDestroyed")
	}
	select {
	case <-tt.destroyed("A"):
	default:
		t.Error("destroyed(A) asked after the event: not closed")
	}
	if tt.isLive("A") || !tt.isLive("B") {
		t.Errorf("isLive A %v, B %v; want false, true", tt.isLive("A"), tt.isLive("B"))
	}

	// A late event or a stale listing never brings a destroyed tab back.
	tt.handle(targetEvent("Target.targetInfoChanged", "A", "page", "https://a/again"))
	tt.opened("A")
	tt.opened("C") // Target.createTarget answered before targetCreated came
	tt.handle(targetEvent("Target.targetCreated", "C", "page", "https://c/"))
	if got, want := ids(), []string{"B https://b/", "C https://c/"}; !slices.Equal(got, want) {
		t.Errorf("pages %v, want %v", got, want)
	}
	if _, live := tt.pages(); !live[target.ID("W")] {
		t.Error("the worker is not among the live targets")
	}
}
