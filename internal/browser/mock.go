package browser

import (
	"context"
	"fmt"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// The fake backend: rules that answer a tab's requests instead of the
// network. A tab with rules that apply to it has Fetch enabled on its own
// session for every request (request stage); each paused request is
// answered by the first live rule that matches, or continued untouched.
//
// The URL guard (guard.go) judges document requests on the browser
// session. Whichever interception Chromium runs first, a mock never makes
// a blocked URL reachable: a document request a rule would answer is
// judged by the same policy here first, and refused the guard's way.
const (
	// mockWorkers bounds the paused requests answered at once per session.
	mockWorkers = 64
	// mockAnswerTimeout bounds answering one request, past its delay.
	mockAnswerTimeout = 5 * time.Second
)

// mockTable is a browser's rules and the sessions armed for them. The
// zero value is ready to use.
type mockTable struct {
	rules driver.MockTable
	// mu guards armed; it may be held while rules' lock is taken, never
	// the other way round.
	mu    sync.Mutex
	armed map[*cdp.Session]*armState // guarded by mu; tab sessions followed for paused requests
}

// armState is one tab session's interception.
type armState struct {
	tab     target.ID
	enabled bool // Fetch is on; cleared when no rule applies any more
}

// AddMock adds a rule for t's requests (or, with r.Context, those of every
// tab in t's browser context), after the rules made before it, and arms
// the tabs it applies to. Invalid rules wrap ErrInvalidArgument and change
// nothing. The context bounds arming.
func (t *Tab) AddMock(ctx context.Context, r driver.MockRule) (driver.Mock, error) {
	if err := r.Check(); err != nil {
		return driver.Mock{}, err
	}
	b := t.b
	bctx, err := b.contextOf(ctx, t.id)
	if err != nil {
		return driver.Mock{}, err
	}
	owner := b.ownerOf(t.id)
	if r.Context && owner != nil {
		n, err := b.othersIn(ctx, bctx, owner)
		if err != nil {
			return driver.Mock{}, err
		}
		if n > 0 {
			return driver.Mock{}, &driver.SharedScopeError{Others: n}
		}
	}
	mock, err := b.mocks.rules.Add(r, mockTab(t.id, bctx, owner))
	if err != nil {
		return driver.Mock{}, err
	}
	if err := b.armMocks(ctx, t, r.Context, bctx); err != nil {
		b.mocks.rules.Remove(mock.ID)
		return driver.Mock{}, err
	}
	return mock, nil
}

// mockTab is tab id, of browser context bctx and owned by owner, as the
// mock table knows it.
func mockTab(id target.ID, bctx cdpapi.BrowserContextID, owner *driver.Scope) driver.MockTab {
	return driver.MockTab{ID: string(id), Context: string(bctx), Owner: owner}
}

// contextOf returns a tab's browser context.
func (b *Browser) contextOf(ctx context.Context, id target.ID) (cdpapi.BrowserContextID, error) {
	res, err := cdpapi.Call(ctx, b.conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
	if err != nil {
		return "", fmt.Errorf("browser: reading the tab's context: %w", err)
	}
	return res.TargetInfo.BrowserContextID, nil
}

// ownerOf returns the scope that owns tab id, adopting it first if it is
// a popup or a tab of a scope's own context not yet claimed; nil for a tab
// of the unscoped view.
func (b *Browser) ownerOf(id target.ID) *driver.Scope {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.owner[id]; s != nil || b.scopes == nil {
		return s
	}
	if ti := b.targets.info(id); ti != nil {
		b.adoptLocked(ti)
	}
	return b.owner[id]
}

// othersIn counts the tabs in browser context bctx that other scopes own.
// Tabs of the unscoped view (the browser's first blank tab, the tabs of a
// browser cdpkit attached to) are not counted: no rule of s applies to
// them anyway (see applies), and no other session acts in them.
// The context bounds asking a tab's browser context when the target table
// does not know it yet.
func (b *Browser) othersIn(ctx context.Context, bctx cdpapi.BrowserContextID, s *driver.Scope) (int, error) {
	targets, _ := b.targets.pages()
	n := 0
	for _, tt := range targets {
		c := tt.info.BrowserContextID
		if c == "" {
			var err error
			if c, err = b.contextOf(ctx, tt.info.TargetID); err != nil {
				continue // gone meanwhile
			}
		}
		if o := b.ownerOf(tt.info.TargetID); c == bctx && o != nil && o != s {
			n++
		}
	}
	return n, nil
}

// Mocks returns the rules q selects, in order of creation, and prunes
// (and returns apart) the tab rules whose tab has closed. The context
// bounds listing the tabs.
func (b *Browser) Mocks(ctx context.Context, q driver.MockQuery) (rules, pruned []driver.Mock, err error) {
	pages, err := b.PagesIn(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	open := make(map[string]bool)
	for _, p := range pages {
		open[string(p.ID)] = true
	}
	mt, err := b.queryTab(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	rules, pruned = b.mocks.rules.List(q, mt, func(tab string) bool { return open[tab] })
	return rules, pruned, nil
}

// queryTab is q.Tab as the mock table knows it; zero when q names no tab.
func (b *Browser) queryTab(ctx context.Context, q driver.MockQuery) (driver.MockTab, error) {
	if q.Tab == "" {
		return driver.MockTab{}, nil
	}
	id := target.ID(q.Tab)
	bctx, err := b.contextOf(ctx, id)
	if err != nil {
		return driver.MockTab{}, err
	}
	return mockTab(id, bctx, b.ownerOf(id)), nil
}

// ClearMocks removes the rules q selects and returns them; the tabs no
// rule applies to any more stop intercepting. An id in q.IDs that names
// no rule the query could see is an error wrapping ErrInvalidArgument,
// and then nothing is removed. The context bounds the disarming.
func (b *Browser) ClearMocks(ctx context.Context, q driver.MockQuery) ([]driver.Mock, error) {
	mt, err := b.queryTab(ctx, q)
	if err != nil {
		return nil, err
	}
	gone, err := b.mocks.rules.Clear(q, mt)
	if err != nil {
		return nil, err
	}
	m := &b.mocks
	m.mu.Lock()
	armed := make(map[*cdp.Session]target.ID, len(m.armed))
	for s, st := range m.armed {
		if st.enabled {
			armed[s] = st.tab
		}
	}
	m.mu.Unlock()
	for s, id := range armed {
		c, err := b.contextOf(ctx, id)
		if err != nil {
			continue
		}
		mt := mockTab(id, c, b.ownerOf(id)) // read before m.mu, never under it
		m.mu.Lock()
		need := m.rules.Applies(mt)
		st := m.armed[s]
		if !need && st != nil {
			st.enabled = false
		}
		m.mu.Unlock()
		if !need && st != nil {
			// Requests paused now are still answered: the follower runs
			// until the session closes, and continues what no rule takes.
			if _, err := cdpapi.Call(ctx, s, fetch.Disable, cdpapi.Empty{}); err != nil {
				b.log.Debug("mock: disarming a tab", "err", err)
			}
		}
	}
	return gone, nil
}
