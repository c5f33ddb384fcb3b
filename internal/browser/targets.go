package browser

import (
	"context"
	"fmt"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// targetTable is the browser's live list of targets, kept from the
// Target.targetCreated, targetInfoChanged and targetDestroyed events of
// the browser session, so that listing and resolving tabs cost no round
// trip. One Target.getTargets fills in, at start, what the events have
// not told yet. Chromium sends no event when a document changes its title,
// so listing titles asks again (Browser.refreshTargets).
//
// Its mutex is taken on the connection's reader goroutine (see
// [cdp.Session.Watch]), so it is never held across a CDP call, nor while
// taking Browser.mu (which may be held while taking it).
type targetTable struct {
	mu    sync.Mutex
	infos map[target.ID]*target.Info    // guarded by mu; the live targets
	order map[target.ID]int             // guarded by mu; first-seen order of the live targets
	next  int                           // guarded by mu
	gone  map[target.ID]bool            // guarded by mu; destroyed targets (ids are never reused)
	waits map[target.ID][]chan struct{} // guarded by mu; closed when the target is destroyed
	made  map[target.ID]bool            // guarded by mu; live page targets cdpkit opened itself
}

func newTargetTable() *targetTable {
	return &targetTable{
		infos: make(map[target.ID]*target.Info),
		order: make(map[target.ID]int),
		gone:  make(map[target.ID]bool),
		waits: make(map[target.ID][]chan struct{}),
		made:  make(map[target.ID]bool),
	}
}

// maxGone bounds the destroyed targets the table remembers.
const maxGone = 4096

// targetEvents are the events the table follows.
var targetEvents = []string{"Target.targetCreated", "Target.targetInfoChanged", "Target.targetDestroyed"}

// watchTargets starts the table: it follows the browser session's target
// events, turns target discovery on, and adds the targets that one
// Target.getTargets lists and no event has announced yet. The context
// bounds the two calls; the watch lasts as long as the connection.
func (b *Browser) watchTargets(ctx context.Context) error {
	bs := b.conn.Browser()
	bs.Watch(b.targets.handle, targetEvents...)
	if _, err := cdpapi.Call(ctx, bs, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return fmt.Errorf("browser: following tabs: %w", err)
	}
	return b.refreshTargets(ctx)
}

// refreshTargets updates the table's titles and URLs from one
// Target.getTargets, and adds what no event has announced yet. The context
// bounds the call.
func (b *Browser) refreshTargets(ctx context.Context) error {
	res, err := cdpapi.Call(ctx, b.conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return fmt.Errorf("browser: listing tabs: %w", err)
	}
	b.targets.mu.Lock()
	defer b.targets.mu.Unlock()
	for _, ti := range res.TargetInfos {
		if old := b.targets.infos[ti.TargetID]; old != nil {
			// An event handled since the reply was sent is newer than it,
			// but no event carries a title.
			upd := *old
			upd.Title = ti.Title
			ti = &upd
		}
		b.targets.putLocked(ti)
	}
	return nil
}

// handle applies one target event. It runs on the reader goroutine.
func (tt *targetTable) handle(ev cdp.Event) {
	switch ev.Method {
	case "Target.targetCreated", "Target.targetInfoChanged":
		var e struct {
			TargetInfo *target.Info `json:"targetInfo"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.TargetInfo == nil {
			return
		}
		tt.mu.Lock()
		tt.putLocked(e.TargetInfo)
		tt.mu.Unlock()
	case "Target.targetDestroyed":
		var e target.EventTargetDestroyed
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		tt.mu.Lock()
		tt.removeLocked(e.TargetID)
		tt.mu.Unlock()
	}
}

// putLocked adds or updates a target, unless it was destroyed already.
// tt.mu must be held.
func (tt *targetTable) putLocked(ti *target.Info) {
	if tt.gone[ti.TargetID] {
		return
	}
	if _, ok := tt.order[ti.TargetID]; !ok {
		tt.order[ti.TargetID] = tt.next
		tt.next++
	}
	tt.infos[ti.TargetID] = ti
}

// removeLocked forgets a destroyed target and wakes its waiters. tt.mu
// must be held.
func (tt *targetTable) removeLocked(id target.ID) {
	if len(tt.gone) >= maxGone {
		// Only the moments around start and a new tab need the record.
		clear(tt.gone)
	}
	tt.gone[id] = true
	delete(tt.infos, id)
	delete(tt.made, id)
	delete(tt.order, id)
	for _, ch := range tt.waits[id] {
		close(ch)
	}
	delete(tt.waits, id)
}

// opened records a page target that Target.createTarget just made, in case
// its targetCreated event is still on its way.
func (tt *targetTable) opened(id target.ID) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if !tt.gone[id] {
		tt.made[id] = true
	}
	if _, ok := tt.infos[id]; !ok {
		tt.putLocked(&target.Info{TargetID: id, Type: "page", URL: "about:blank"})
	}
}

// madeAll marks every live page target as opened by cdpkit: those of a
// browser it just launched.
func (tt *targetTable) madeAll() {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for id, ti := range tt.infos {
		if ti.Type == "page" {
			tt.made[id] = true
		}
	}
}

// tabTarget is a page target in first-seen order.
type tabTarget struct {
	info  target.Info
	order int
	made  bool // cdpkit opened it
}

// pages returns the live page targets (prerendering ones left out), in
// first-seen order, and the set of every live target id.
func (tt *targetTable) pages() ([]tabTarget, map[target.ID]bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	live := make(map[target.ID]bool, len(tt.infos))
	var out []tabTarget
	for id, ti := range tt.infos {
		live[id] = true
		if ti.Type != "page" || ti.Subtype == "prerender" {
			continue
		}
		out = append(out, tabTarget{info: *ti, order: tt.order[id], made: tt.made[id]})
	}
	return out, live
}

// info returns a copy of a live target's info, or nil.
func (tt *targetTable) info(id target.ID) *target.Info {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	ti := tt.infos[id]
	if ti == nil {
		return nil
	}
	c := *ti
	return &c
}

// isLive reports whether the target exists.
func (tt *targetTable) isLive(id target.ID) bool {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	_, ok := tt.infos[id]
	return ok
}

// destroyed returns a channel closed once the target is destroyed
// (already closed if it was).
func (tt *targetTable) destroyed(id target.ID) <-chan struct{} {
	ch := make(chan struct{})
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.gone[id] {
		close(ch)
		return ch
	}
	tt.waits[id] = append(tt.waits[id], ch)
	return ch
}
