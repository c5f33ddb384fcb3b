package browser

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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

// mockRule is a kept rule.
type mockRule struct {
	driver.Mock
	match   func(string) bool
	context cdpapi.BrowserContextID // the tab's context
	owner   *driver.Scope
	rng     *rand.Rand // guarded by mockTable.mu
}

// mockTable is a browser's rules and the sessions armed for them. The
// zero value is ready to use.
type mockTable struct {
	mu    sync.Mutex
	rules []*mockRule                // guarded by mu; in order of creation
	next  int                        // guarded by mu; the last id issued
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
	match, err := driver.CompileURLPattern(r.URL)
	if err != nil {
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
			return driver.Mock{}, &sharedScopeError{others: n}
		}
	}
	m := &b.mocks
	m.mu.Lock()
	live := 0
	for _, x := range m.rules {
		if !x.Expired {
			live++
		}
	}
	if len(m.rules) >= driver.MaxMockRules {
		// Make room by forgetting expired rules, oldest first.
		m.rules = slices.DeleteFunc(m.rules, func(x *mockRule) bool { return x.Expired })
	}
	if len(m.rules) >= driver.MaxMockRules {
		m.mu.Unlock()
		return driver.Mock{}, fmt.Errorf("%w: %d mock rules are armed, the most there can be; clear some first", driver.ErrInvalidArgument, live)
	}
	m.next++
	rule := &mockRule{match: match, context: bctx, owner: owner, rng: rand.New(rand.NewPCG(r.Seed, r.Seed^0x9e3779b97f4a7c15))}
	rule.ID, rule.MockRule, rule.Tab, rule.DelayMs, rule.BodyBytes = m.next, r, string(t.id), r.Delay.Milliseconds(), len(r.Body)
	rule.Scope = "tab"
	if r.Context {
		rule.Scope = "context"
	}
	m.rules = append(m.rules, rule)
	m.mu.Unlock()
	if err := b.armMocks(ctx, t, r.Context, bctx); err != nil {
		m.mu.Lock()
		m.rules = slices.DeleteFunc(m.rules, func(x *mockRule) bool { return x == rule })
		m.mu.Unlock()
		return driver.Mock{}, err
	}
	return rule.Mock, nil
}

// contextOf returns a tab's browser context.
func (b *Browser) contextOf(ctx context.Context, id target.ID) (cdpapi.BrowserContextID, error) {
	res, err := cdpapi.Call(ctx, b.conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
	if err != nil {
		return "", fmt.Errorf("browser: reading the tab's context: %w", err)
	}
	return res.TargetInfo.BrowserContextID, nil
}

type sharedScopeError struct{ others int }

func (e *sharedScopeError) Error() string {
	return fmt.Sprintf("%s: scope context would cover %d tab(s) of other sessions in this browser context", driver.ErrInvalidArgument, e.others)
}
func (e *sharedScopeError) Unwrap() []error {
	return []error{driver.ErrInvalidArgument, driver.ErrSharedScope}
}

// applies reports whether rule r applies to tab id, in context bctx and
// owned by owner: a rule made in a scope applies only to the scope's own
// tabs, whatever its reach, so one session's rules never answer another
// session's requests in a context they share.
func (r *mockRule) applies(id target.ID, bctx cdpapi.BrowserContextID, owner *driver.Scope) bool {
	if r.owner != nil && r.owner != owner {
		return false
	}
	if r.Context {
		return r.context == bctx
	}
	return r.Tab == string(id)
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
	var bctx cdpapi.BrowserContextID
	var owner *driver.Scope
	if q.Tab != "" {
		if bctx, err = b.contextOf(ctx, target.ID(q.Tab)); err != nil {
			return nil, nil, err
		}
		owner = b.ownerOf(target.ID(q.Tab))
	}
	m := &b.mocks
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rules = slices.DeleteFunc(m.rules, func(r *mockRule) bool {
		if r.Context || open[r.Tab] {
			return false
		}
		if q.Scope == nil || r.owner == q.Scope {
			pruned = append(pruned, r.Mock)
		}
		return true
	})
	for _, r := range m.rules {
		if mockSelects(&q, r, bctx, owner) {
			rules = append(rules, r.Mock)
		}
	}
	return rules, pruned, nil
}

func mockSelects(q *driver.MockQuery, r *mockRule, bctx cdpapi.BrowserContextID, owner *driver.Scope) bool {
	if q.Scope != nil && r.owner != q.Scope {
		return false
	}
	if len(q.IDs) > 0 && !slices.Contains(q.IDs, r.ID) {
		return false
	}
	return q.Tab == "" || r.applies(target.ID(q.Tab), bctx, owner)
}

// ClearMocks removes the rules q selects and returns them; the tabs no
// rule applies to any more stop intercepting. An id in q.IDs that names
// no rule the query could see is an error wrapping ErrInvalidArgument,
// and then nothing is removed. The context bounds the disarming.
func (b *Browser) ClearMocks(ctx context.Context, q driver.MockQuery) ([]driver.Mock, error) {
	var bctx cdpapi.BrowserContextID
	var owner *driver.Scope
	if q.Tab != "" {
		var err error
		if bctx, err = b.contextOf(ctx, target.ID(q.Tab)); err != nil {
			return nil, err
		}
		owner = b.ownerOf(target.ID(q.Tab))
	}
	m := &b.mocks
	m.mu.Lock()
	for _, id := range q.IDs {
		if !slices.ContainsFunc(m.rules, func(r *mockRule) bool { return r.ID == id && mockSelects(&q, r, bctx, owner) }) {
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: no mock rule %d here", driver.ErrInvalidArgument, id)
		}
	}
	var gone []driver.Mock
	m.rules = slices.DeleteFunc(m.rules, func(r *mockRule) bool {
		if mockSelects(&q, r, bctx, owner) {
			gone = append(gone, r.Mock)
			return true
		}
		return false
	})
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
		o := b.ownerOf(id)
		m.mu.Lock()
		st := m.armed[s]
		need := slices.ContainsFunc(m.rules, func(r *mockRule) bool { return !r.Expired && r.applies(id, c, o) })
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
