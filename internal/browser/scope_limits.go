package browser

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// browserSerials numbers the browsers scopes have used, so that a scope
// can tell that the browser it acted in was replaced.
var browserSerials atomic.Uint64

// reserveTab counts a tab about to be opened for s against its MaxTabs;
// done ends the reservation (the tab, if opened, is owned by then).
func (b *Browser) reserveTab(s *driver.Scope) (done func(), err error) {
	if s == nil || s.MaxTabs() <= 0 {
		return func() {}, nil
	}
	if s.Ended() {
		return nil, fmt.Errorf("browser: opening a tab: %w", driver.ErrScopeClosed)
	}
	_, live := b.targets.pages()
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.stateLocked(s)
	n := st.opening
	for id, owner := range b.owner {
		if owner == s && live[id] {
			n++
		}
	}
	if n >= s.MaxTabs() {
		return nil, &driver.TabLimitError{Max: s.MaxTabs()}
	}
	st.opening++
	return func() {
		b.mu.Lock()
		st.opening--
		b.mu.Unlock()
	}, nil
}

// maxRefusedKept bounds the refused tabs a scope keeps until they are
// reported.
const maxRefusedKept = 20

// refusedCloseTimeout bounds closing a tab opened past a scope's limit.
const refusedCloseTimeout = 10 * time.Second

// watchPopups adopts each page target as it is created, so that a tab a
// scope's page opens counts against the scope's MaxTabs at once, not only
// when the tabs are next listed. The watch runs on the connection's
// reader goroutine, so the adoption (which takes b.mu) runs on its own.
func (b *Browser) watchPopups() {
	b.conn.Browser().Watch(func(ev cdp.Event) {
		var e struct {
			TargetInfo *target.Info `json:"targetInfo"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.TargetInfo == nil || e.TargetInfo.Type != "page" || e.TargetInfo.OpenerID == "" {
			return
		}
		go func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.adoptLocked(e.TargetInfo)
		}()
	}, "Target.targetCreated")
}

// closeRefused closes a tab opened past its scope's MaxTabs.
func (b *Browser) closeRefused(id target.ID) {
	ctx, cancel := context.WithTimeout(context.Background(), refusedCloseTimeout)
	defer cancel()
	if _, err := cdpapi.Call(ctx, b.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
		b.log.Debug("closing a tab opened past the session's limit", "err", err)
	}
}

// TakeRefusedTabs returns, once, the tabs s's pages opened past its
// MaxTabs, which were closed. A nil s has no limit and gets none.
func (b *Browser) TakeRefusedTabs(s *driver.Scope) []driver.RefusedTab {
	if s == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.scopes[s]
	if st == nil {
		return nil
	}
	out := st.refused
	st.refused = nil
	return out
}
