package browser

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// Tab is one page target. Get one from [Browser.Resolve] or
// [Browser.NewTab]. Methods are safe for concurrent use; each context bounds
// only its call.
type Tab struct {
	b  *Browser
	id target.ID

	mu   sync.Mutex   // serializes attaching
	sess *cdp.Session // guarded by mu; nil until first use or after detach

	refs *refTable // element refs handed out by snapshots

	console consoleLog // console messages, recorded from the first attach

	net netLog // network requests, recorded from the first attach (netlog.go)

	dialogs dialogTracker // JavaScript dialogs, followed from the first attach

	emu emulator // viewport and emulation overrides, kept to apply again on a new session

	queue opQueue // state-changing calls run one at a time; see queue.go

	crashed atomic.Bool // the renderer crashed; a successful navigation clears it

	fmu    sync.Mutex                      // guards frames
	frames map[cdpapi.FrameID]*cdp.Session // out-of-process iframes by frame id
}

func newTabHandle(b *Browser, id target.ID) *Tab {
	return &Tab{b: b, id: id, refs: newRefTable(), frames: make(map[cdpapi.FrameID]*cdp.Session)}
}

// ID returns the tab's target id.
func (t *Tab) ID() target.ID { return t.id }

// Session returns the tab's CDP session, attaching on first use (and again
// after a detach) and enabling the domains cdpkit relies on.
func (t *Tab) Session(ctx context.Context) (*cdp.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		select {
		case <-t.sess.Done():
		default:
			return t.sess, nil
		}
	}
	Step(ctx, "attaching to the tab")
	s, err := t.b.conn.Attach(ctx, t.id)
	if err != nil {
		return nil, err
	}
	t.dialogs.track(s) // before Page.enable, so no dialog goes unseen
	t.watchCrash(s)
	if _, err := cdpapi.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		return nil, fmt.Errorf("browser: enabling page events: %w", err)
	}
	if _, err := cdpapi.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return nil, fmt.Errorf("browser: enabling lifecycle events: %w", err)
	}
	if !t.b.noNetLog {
		t.net.follow(s, cdpapi.FrameID(t.id)) // before Network.enable, so no request goes unseen
	}
	if _, err := cdpapi.Call(ctx, s, network.Enable, network.EnableParams{}); err != nil {
		return nil, fmt.Errorf("browser: enabling network events: %w", err)
	}
	if err := t.console.record(ctx, s); err != nil {
		return nil, fmt.Errorf("browser: recording the console: %w", err)
	}
	if err := t.autoAttach(ctx, s); err != nil {
		return nil, fmt.Errorf("browser: attaching to iframes: %w", err)
	}
	if err := t.b.armSession(ctx, t, s); err != nil { // mock rules survive a reattach
		return nil, err
	}
	if err := t.b.seedStorage(ctx, t, s); err != nil {
		return nil, err
	}
	t.sess = s
	return s, nil
}

// Location is where a tab is.
type Location struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// Location returns the tab's current URL and title.
func (t *Tab) Location(ctx context.Context) (Location, error) {
	s, err := t.Session(ctx)
	if err != nil {
		return Location{}, err
	}
	return location(ctx, s)
}

func location(ctx context.Context, s cdpapi.Session) (Location, error) {
	h, err := whileSwapping(ctx, func() (page.GetNavigationHistoryResult, error) {
		return cdpapi.Call(ctx, s, page.GetNavigationHistory, cdpapi.Empty{})
	})
	if err != nil {
		return Location{}, fmt.Errorf("browser: reading location: %w", err)
	}
	if h.CurrentIndex < 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return Location{}, nil
	}
	e := h.Entries[h.CurrentIndex]
	return Location{URL: e.URL, Title: e.Title}, nil
}
