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

	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Tab is one page target. Get one from [Browser.Resolve] or
// [Browser.NewTab]. Methods are safe for concurrent use; each context bounds
// only its call.
type Tab struct {
	b  *Browser
	id target.ID

	mu   sync.Mutex   // serializes attaching
	sess *cdp.Session // guarded by mu; nil until first use or after detach

	refs   *refTable      // element refs handed out by snapshots
	worlds worldCache     // cdpkit's isolated worlds, by frame and document (worlds.go)
	ftree  frameTreeCache // the page session's frames and their documents (frametree.go)
	where  whereCache     // the URL the history last gave, while current (where.go)
	small  smallDoc       // the main document last counted well under the snapshot budget
	reuse  snapReuse      // the last whole-page snapshot tree, for an unchanged document (snapshot_reuse.go)
	live   liveWorlds     // the page session's cdpkit worlds, made by the browser (worlds_live.go)

	console consoleLog // console messages, recorded from the first attach

	net netLog // network requests, recorded from the first attach (netlog.go)

	dialogs dialogTracker // JavaScript dialogs, followed from the first attach

	chooser chooserNote // the last file chooser the page opened (filechooser.go)

	imgScale imageScale // of the last viewport screenshot shown (pointer_at.go)

	emu emulator // viewport and emulation overrides, kept to apply again on a new session

	queue opQueue // state-changing calls run one at a time; see queue.go

	crashed     atomic.Bool  // the renderer crashed; a successful navigation clears it
	closeAsked  atomic.Bool  // cdpkit asked the browser to close the tab (close_page, a session's end)
	loopStopped atomic.Bool  // cdpkit is stopping the renderer of a dialog loop (dialog.go)
	blockSeen   atomic.Int64 // unix ns of the last guard refusal reported for the tab (blocknote.go)
	settled     atomic.Bool  // the last action waited for what its input set off; the next Settle need not (act.go)
	// downloading says the last action set off a download whose
	// downloadWillBegin may not have come yet (downloads_begin.go).
	downloading atomic.Bool

	fmu    sync.Mutex                      // guards frames
	frames map[cdpapi.FrameID]*cdp.Session // out-of-process iframes by frame id
}

func newTabHandle(b *Browser, id target.ID) *Tab {
	return &Tab{b: b, id: id, refs: newRefTable(), frames: make(map[cdpapi.FrameID]*cdp.Session)}
}

// ID returns the tab's target id.
func (t *Tab) ID() string { return string(t.id) }

// session returns the tab's CDP session, attaching on first use (and again
// after a detach) and enabling the domains cdpkit relies on.
func (t *Tab) session(ctx context.Context) (*cdp.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		select {
		case <-t.sess.Done():
		default:
			return t.sess, nil
		}
	}
	driver.Step(ctx, "attaching to the tab")
	s, err := t.b.conn.Attach(ctx, t.id)
	if cdp.Classify(err) == cdp.KindNoTarget {
		// Closed, though its targetDestroyed may still be on its way.
		return nil, fmt.Errorf("browser: tab %s: %w", t.id, &cdp.SessionClosedError{Method: "Target.attachToTarget"})
	}
	if err != nil {
		return nil, err
	}
	t.dialogs.track(s) // before Page.enable, so no dialog goes unseen
	t.watchCrash(s)
	t.ftree.follow(s) // before Page.enable, so no frame event goes unseen
	t.where.follow(s)
	t.live.follow(s) // before Runtime.enable (console), which reports the worlds that exist
	if _, err := cdpapi.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		return nil, fmt.Errorf("browser: enabling page events: %w", err)
	}
	if _, err := cdpapi.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return nil, fmt.Errorf("browser: enabling lifecycle events: %w", err)
	}
	if err := makeWorlds(ctx, s); err != nil {
		return nil, fmt.Errorf("browser: preparing cdpkit's world: %w", err)
	}
	if err := t.chooser.follow(ctx, s); err != nil {
		return nil, err
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
	if err := t.applyDefaults(ctx, s); err != nil {
		return nil, err
	}
	t.sess = s
	return s, nil
}

// Location returns the tab's current URL and title.
func (t *Tab) Location(ctx context.Context) (driver.Location, error) {
	s, err := t.session(ctx)
	if err != nil {
		return driver.Location{}, err
	}
	gen := t.where.mark()
	loc, err := location(cdp.ReadOnly(ctx), s)
	if err == nil {
		t.where.put(s, gen, loc.URL)
	}
	return loc, err
}

func location(ctx context.Context, s cdpapi.Session) (driver.Location, error) {
	h, err := whileSwapping(ctx, func() (page.GetNavigationHistoryResult, error) {
		return cdpapi.Call(ctx, s, page.GetNavigationHistory, cdpapi.Empty{})
	})
	if err != nil {
		return driver.Location{}, fmt.Errorf("browser: reading location: %w", err)
	}
	if h.CurrentIndex < 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return driver.Location{}, nil
	}
	e := h.Entries[h.CurrentIndex]
	return driver.Location{URL: e.URL, Title: e.Title}, nil
}

// tabID is a tab's ID, as the protocol types it.
func tabID(id string) target.ID { return target.ID(id) }

func init() {
	rawcdp.Register(
		func(ctx context.Context, tab any) (*cdp.Session, error) { return tab.(*Tab).session(ctx) },
		func(b any) *cdp.Conn { return b.(*Browser).conn },
	)
}
