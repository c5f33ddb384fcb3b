package driver

import (
	"errors"
	"fmt"
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

// RefusedTab is a tab a scope's page opened past its MaxTabs, closed at
// once.
type RefusedTab struct {
	ID     string `json:"id"`
	URL    string `json:"url,omitempty"`    // what it was opened on, when known
	Opener string `json:"opener,omitempty"` // the tab whose page opened it
}
