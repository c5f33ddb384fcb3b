package driver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
)

// MockTable is a browser's mock rules, in order of creation: what each
// backend keeps the same way, whatever it intercepts requests with. The
// zero value is ready to use; it is safe for concurrent use.
type MockTable struct {
	mu    sync.Mutex
	rules []*keptMock // guarded by mu
	next  int         // guarded by mu; the last id issued
}

// MockTab is the tab a rule is made on or a request comes from: its id,
// its browser (or user) context and the scope that owns it (nil for the
// unscoped view).
type MockTab struct {
	ID, Context string
	Owner       *Scope
}

// MockRequest is a request a rule may answer.
type MockRequest struct {
	URL          string
	Method       string // upper case
	ResourceType string // lower case, as in Request
}

// keptMock is a rule in a MockTable.
type keptMock struct {
	Mock
	match   func(string) bool
	context string
	owner   *Scope
	rng     *rand.Rand // guarded by MockTable.mu
}

// applies reports whether r applies to tab t: a rule made in a scope
// applies only to the scope's own tabs, whatever its reach, so one
// session's rules never answer another session's requests in a context
// they share.
func (r *keptMock) applies(t MockTab) bool {
	if r.owner != nil && r.owner != t.Owner {
		return false
	}
	if r.Context {
		return r.context == t.Context
	}
	return r.Tab == t.ID
}

// Add checks r and keeps it for tab t, after the rules made before it.
// When the table is full it forgets expired rules, oldest first; if it is
// still full, or r is invalid, the error wraps ErrInvalidArgument and
// nothing changes.
func (m *MockTable) Add(r MockRule, t MockTab) (Mock, error) {
	if err := r.Check(); err != nil {
		return Mock{}, err
	}
	match, err := CompileURLPattern(r.URL)
	if err != nil {
		return Mock{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.rules) >= MaxMockRules {
		m.rules = slices.DeleteFunc(m.rules, func(x *keptMock) bool { return x.Expired })
	}
	if len(m.rules) >= MaxMockRules {
		return Mock{}, fmt.Errorf("%w: %d mock rules are armed, the most there can be; clear some first", ErrInvalidArgument, len(m.rules))
	}
	m.next++
	k := &keptMock{match: match, context: t.Context, owner: t.Owner, rng: rand.New(rand.NewPCG(r.Seed, r.Seed^0x9e3779b97f4a7c15))}
	k.ID, k.MockRule, k.Tab, k.DelayMs, k.BodyBytes = m.next, r, t.ID, r.Delay.Milliseconds(), len(r.Body)
	k.Scope = "tab"
	if r.Context {
		k.Scope = "context"
	}
	m.rules = append(m.rules, k)
	return k.Mock, nil
}

// Remove forgets the rule with id, as when arming it failed.
func (m *MockTable) Remove(id int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rules = slices.DeleteFunc(m.rules, func(x *keptMock) bool { return x.ID == id })
}

// Empty reports whether the table holds no rule.
func (m *MockTable) Empty() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rules) == 0
}

// Applies reports whether a live rule applies to tab t, which then needs
// its requests intercepted.
func (m *MockTable) Applies(t MockTab) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.ContainsFunc(m.rules, func(r *keptMock) bool { return !r.Expired && r.applies(t) })
}

// Take finds the first live rule that answers req from tab t and counts
// the hit (a rule whose times are used up expires). It returns the rule
// and whether its failRate draw failed the request; ok is false when no
// rule matches.
func (m *MockTable) Take(t MockTab, req MockRequest) (rule MockRule, fail, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.rules {
		if r.Expired || !r.applies(t) || (r.Method != "" && r.Method != req.Method) ||
			(r.ResourceType != "" && r.ResourceType != req.ResourceType) || !r.match(req.URL) {
			continue
		}
		r.Hits++
		if r.Times > 0 && r.Hits >= r.Times {
			r.Expired = true
		}
		return r.MockRule, r.FailRate > 0 && r.rng.Float64() < r.FailRate, true
	}
	return MockRule{}, false, false
}

// List returns the rules q selects, in order of creation; t is q.Tab's
// context and owner (zero when q.Tab is ""). It first forgets the tab
// rules whose tab open no longer reports, and returns those of them q's
// scope made apart, in pruned.
func (m *MockTable) List(q MockQuery, t MockTab, open func(tab string) bool) (rules, pruned []Mock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rules = slices.DeleteFunc(m.rules, func(r *keptMock) bool {
		if r.Context || open(r.Tab) {
			return false
		}
		if q.Scope == nil || r.owner == q.Scope {
			pruned = append(pruned, r.Mock)
		}
		return true
	})
	for _, r := range m.rules {
		if r.selected(&q, t) {
			rules = append(rules, r.Mock)
		}
	}
	return rules, pruned
}

// Clear removes the rules q selects and returns them; t is as for List.
// An id in q.IDs that names no rule the query could see is an error
// wrapping ErrInvalidArgument, and then nothing is removed.
func (m *MockTable) Clear(q MockQuery, t MockTab) ([]Mock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range q.IDs {
		if !slices.ContainsFunc(m.rules, func(r *keptMock) bool { return r.ID == id && r.selected(&q, t) }) {
			return nil, fmt.Errorf("%w: no mock rule %d here", ErrInvalidArgument, id)
		}
	}
	var gone []Mock
	m.rules = slices.DeleteFunc(m.rules, func(r *keptMock) bool {
		if r.selected(&q, t) {
			gone = append(gone, r.Mock)
			return true
		}
		return false
	})
	return gone, nil
}

// selected reports whether q selects r; t is q.Tab's.
func (r *keptMock) selected(q *MockQuery, t MockTab) bool {
	if q.Scope != nil && r.owner != q.Scope {
		return false
	}
	if len(q.IDs) > 0 && !slices.Contains(q.IDs, r.ID) {
		return false
	}
	return q.Tab == "" || r.applies(t)
}

// SharedScopeError refuses a rule over a whole browser context in which
// other sessions have tabs. It wraps ErrInvalidArgument and
// ErrSharedScope.
type SharedScopeError struct{ Others int }

func (e *SharedScopeError) Error() string {
	return fmt.Sprintf("%s: scope context would cover %d tab(s) of other sessions in this browser context", ErrInvalidArgument, e.Others)
}

func (e *SharedScopeError) Unwrap() []error {
	return []error{ErrInvalidArgument, ErrSharedScope}
}
