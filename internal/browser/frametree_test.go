package browser

import (
	"testing"

	cdpapi "github.com/chromedp/cdproto/cdp"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// TestFrameTreeCacheEvents: the cached frame tree follows a main-frame
// navigation in place, and anything else (a frame attached, detached or
// navigated, a page from the back/forward cache, a crash) makes the next
// read ask the browser; a tree read across an event is not kept.
func TestFrameTreeCacheEvents(t *testing.T) {
	s := &cdp.Session{}
	nav := func(frame, parent, loader, typ string) cdp.Event {
		return cdp.Event{Method: "Page.frameNavigated", Params: []byte(`{"frame":{"id":"` + frame + `","parentId":"` + parent +
			`","loaderId":"` + loader + `","url":"http://x/","securityOrigin":"","mimeType":"text/html","domainAndRegistry":"","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]},"type":"` + typ + `"}`)}
	}
	tree := map[cdpapi.FrameID]cdpapi.LoaderID{"M": "L1", "C": "L2"}
	for _, tt := range []struct {
		name      string
		ev        cdp.Event
		wantValid bool
		want      map[cdpapi.FrameID]cdpapi.LoaderID
	}{
		{"main frame navigated", nav("M", "", "L3", "Navigation"), true, map[cdpapi.FrameID]cdpapi.LoaderID{"M": "L3"}},
		{"same document", cdp.Event{Method: "Page.navigatedWithinDocument", Params: []byte(`{"frameId":"M","url":"http://x/#a","navigationType":"fragment"}`)}, true, tree},
		{"child navigated", nav("C", "M", "L4", "Navigation"), false, nil},
		{"back/forward cache", nav("M", "", "L1", "BackForwardCacheRestore"), false, nil},
		{"frame attached", cdp.Event{Method: "Page.frameAttached", Params: []byte(`{"frameId":"D","parentFrameId":"M"}`)}, false, nil},
		{"frame detached", cdp.Event{Method: "Page.frameDetached", Params: []byte(`{"frameId":"C","reason":"remove"}`)}, false, nil},
		{"crash", cdp.Event{Method: "Inspector.targetCrashed", Params: []byte(`{}`)}, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c frameTreeCache
			c.sess = s
			_, _, gen, _ := c.get(s)
			c.put(s, gen, tree, "M")
			c.handle(s, tt.ev)
			lds, main, gen, ok := c.get(s)
			if ok != tt.wantValid {
				t.Fatalf("valid after %s = %v, want %v", tt.ev.Method, ok, tt.wantValid)
			}
			if ok && (main != "M" || len(lds) != len(tt.want) || lds["M"] != tt.want["M"]) {
				t.Errorf("tree = %v (main %s), want %v", lds, main, tt.want)
			}
			// A read that began before an event is not kept.
			c.handle(s, cdp.Event{Method: "Page.frameAttached", Params: []byte(`{"frameId":"E","parentFrameId":"M"}`)})
			c.put(s, gen, tree, "M")
			if _, _, _, ok := c.get(s); ok {
				t.Error("a tree read across an event was kept")
			}
		})
	}
	if tree["M"] != "L1" || len(tree) != 2 {
		t.Errorf("an event changed a stored tree in place: %v", tree)
	}
}
