package browser

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// ErrTabLimit means a scope has as many tabs open as its MaxTabs allows.
var ErrTabLimit = errors.New("browser: the session's tab limit is reached")

// TabLimitError says how many tabs the scope may have open.
type TabLimitError struct {
	Max int
}

func (e *TabLimitError) Error() string {
	return fmt.Sprintf("browser: opening a tab: the session has %d tabs open, its limit", e.Max)
}
func (e *TabLimitError) Unwrap() error { return ErrTabLimit }

// browserSerials numbers the browsers scopes have used, so that a scope
// can tell that the browser it acted in was replaced.
var browserSerials atomic.Uint64

// reserveTab counts a tab about to be opened for s against its MaxTabs;
// done ends the reservation (the tab, if opened, is owned by then).
func (b *Browser) reserveTab(s *Scope) (done func(), err error) {
	if s == nil || s.maxTabs <= 0 {
		return func() {}, nil
	}
	if s.closed.Load() {
		return nil, fmt.Errorf("browser: opening a tab: %w", ErrScopeClosed)
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
	if n >= s.maxTabs {
		return nil, &TabLimitError{Max: s.maxTabs}
	}
	st.opening++
	return func() {
		b.mu.Lock()
		st.opening--
		b.mu.Unlock()
	}, nil
}

// TakeReset reports whether the browser s last acted in is not the one
// it acted in before, because the first crashed or was stopped and
// another took its place: s's tabs, refs and page state are gone. It
// reports each replacement once, and only to scopes that had used the
// browser replaced, so a pool's sessions on other browsers never see it.
// A nil Scope reports false.
func (s *Scope) TakeReset() bool {
	if s == nil {
		return false
	}
	last := s.last.Load()
	if last == 0 {
		return false
	}
	old := s.seen.Swap(last)
	return old != 0 && old != last
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

// RefusedTab is a tab a scope's page opened past its MaxTabs, closed at
// once.
type RefusedTab struct {
	ID     string `json:"id"`
	URL    string `json:"url,omitempty"`    // what it was opened on, when known
	Opener string `json:"opener,omitempty"` // the tab whose page opened it
}

// TakeRefusedTabs returns, once, the tabs s's pages opened past its
// MaxTabs, which were closed. A nil s has no limit and gets none.
func (b *Browser) TakeRefusedTabs(s *Scope) []RefusedTab {
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
