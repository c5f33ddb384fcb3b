package browser

import (
	"errors"
	"fmt"
	"sync/atomic"
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
