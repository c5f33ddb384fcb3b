package firefox

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Mock rules, as on Chromium (see driver.MockRule): the first live rule
// that matches a request of a tab it applies to answers it with
// network.provideResponse or network.failRequest, or lets it go on with
// network.continueRequest. Requests are paused by the guard's one
// intercept (network.addIntercept at beforeRequestSent, guard.go), which
// judges a navigation request by the URL policy before any rule sees it:
// a mock never makes a blocked URL reachable. A rule made in a scope
// applies only to that scope's tabs, so one session's rules never answer
// another session's requests.
//
// BiDi's failRequest takes no reason: every failure is Firefox's network
// error, whatever reason the rule names.

// mockTable is a browser's rules. The zero value is ready to use.
type mockTable struct {
	mu    sync.Mutex
	rules []*mockRule // guarded by mu; in order of creation
	next  int         // guarded by mu; the last id issued
}

// mockRule is a kept rule.
type mockRule struct {
	driver.Mock
	match       func(string) bool
	userContext string // the tab's user context, for scope context
	owner       *driver.Scope
	rng         *rand.Rand // guarded by mockTable.mu
}

// pausedRequest is a request the intercept paused.
type pausedRequest struct {
	context, id, url, method, rtype string
	navigation                      bool
}

// checkRule validates r as Chromium does, naming the bad field in an error
// that wraps driver.ErrInvalidArgument.
func checkRule(r *driver.MockRule) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{driver.ErrInvalidArgument}, args...)...)
	}
	switch r.Action {
	case driver.MockFulfill, driver.MockFail, driver.MockContinue:
	default:
		return bad("action %q is not fulfill, fail or continue", r.Action)
	}
	if r.Method != "" && !methodRE.MatchString(r.Method) {
		return bad("method %q is not an HTTP method", r.Method)
	}
	if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
		return bad("status %d is not 100 to 599", r.Status)
	}
	if r.Reason != "" && !slices.Contains(driver.MockErrorReasons, r.Reason) {
		return bad("reason %q is not one of %s", r.Reason, strings.Join(driver.MockErrorReasons, ", "))
	}
	if r.FailRate < 0 || r.FailRate > 1 {
		return bad("failRate %v is not between 0 and 1", r.FailRate)
	}
	if r.FailRate > 0 && r.Action != driver.MockContinue {
		return bad("failRate goes with action continue")
	}
	if r.Delay < 0 || r.Delay > driver.MaxMockDelay {
		return bad("delayMs %d is not 0 to %d", r.Delay.Milliseconds(), driver.MaxMockDelay.Milliseconds())
	}
	if r.Times < 0 {
		return bad("times %d is negative", r.Times)
	}
	if len(r.Body) > driver.MaxMockBody {
		return bad("the body is %d bytes, over %d", len(r.Body), driver.MaxMockBody)
	}
	if r.Action != driver.MockFulfill && (len(r.Body) > 0 || len(r.Headers) > 0 || r.Status != 0) {
		return bad("status, headers and body go with action fulfill")
	}
	for k, v := range r.Headers {
		if !tokenRE.MatchString(k) || len(k) > 256 {
			return bad("header name %q is not an HTTP token (letters, digits and !#$%%&'*+-.^_`|~)", k)
		}
		if i := strings.IndexFunc(v, func(c rune) bool { return c != '\t' && (c < 0x20 || c == 0x7f) }); i >= 0 {
			return bad("header %s's value has a control character (%U) at byte %d", k, v[i], i)
		}
	}
	return nil
}

var (
	methodRE = regexp.MustCompile(`^[A-Z]{1,16}$`)
	tokenRE  = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
)

// sharedScopeError is a scope-context rule refused because other sessions
// have tabs in the user context.
type sharedScopeError struct{ others int }

func (e *sharedScopeError) Error() string {
	return fmt.Sprintf("%s: scope context would cover %d tab(s) of other sessions in this browser context", driver.ErrInvalidArgument, e.others)
}
func (e *sharedScopeError) Unwrap() []error {
	return []error{driver.ErrInvalidArgument, driver.ErrSharedScope}
}

// userContextOf returns the user context of tab id: its scope's own, or
// the default one. b.mu must be held.
func (b *Browser) userContextOfLocked(id string) string {
	if s := b.owner[id]; s != nil {
		if st := b.scopes[s]; st != nil && st.userContext != "" {
			return st.userContext
		}
	}
	return "default"
}

// applies reports whether r applies to tab id of user context uc owned by
// owner.
func (r *mockRule) applies(id, uc string, owner *driver.Scope) bool {
	if r.owner != nil && r.owner != owner {
		return false
	}
	if r.Context {
		return r.userContext == uc
	}
	return r.Tab == id
}

// AddMock implements driver.TabDriver: a rule for the tab's requests (or,
// with r.Context, those of every tab of its user context that its scope
// owns), after the rules made before it. An invalid rule wraps
// driver.ErrInvalidArgument and changes nothing.
func (t *Tab) AddMock(ctx context.Context, r driver.MockRule) (driver.Mock, error) {
	if err := checkRule(&r); err != nil {
		return driver.Mock{}, err
	}
	match, err := driver.CompileURLPattern(r.URL)
	if err != nil {
		return driver.Mock{}, err
	}
	b := t.b
	b.mu.Lock()
	owner := b.owner[t.id]
	uc := b.userContextOfLocked(t.id)
	others := 0
	if r.Context && owner != nil {
		for id, o := range b.owner {
			if o != nil && o != owner && b.userContextOfLocked(id) == uc {
				others++
			}
		}
	}
	b.mu.Unlock()
	if others > 0 {
		return driver.Mock{}, &sharedScopeError{others: others}
	}
	m := &b.mocks
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.rules) >= driver.MaxMockRules {
		m.rules = slices.DeleteFunc(m.rules, func(x *mockRule) bool { return x.Expired })
	}
	if len(m.rules) >= driver.MaxMockRules {
		return driver.Mock{}, fmt.Errorf("%w: %d mock rules are armed, the most there can be; clear some first", driver.ErrInvalidArgument, len(m.rules))
	}
	m.next++
	rule := &mockRule{match: match, userContext: uc, owner: owner, rng: rand.New(rand.NewPCG(r.Seed, r.Seed^0x9e3779b97f4a7c15))}
	rule.ID, rule.MockRule, rule.Tab, rule.DelayMs, rule.BodyBytes = m.next, r, t.id, r.Delay.Milliseconds(), len(r.Body)
	rule.Scope = "tab"
	if r.Context {
		rule.Scope = "context"
	}
	m.rules = append(m.rules, rule)
	return rule.Mock, nil
}

// mocked answers a paused request by the first live rule that matches it
// and reports whether one did; the guard has already judged it. Answering
// is bounded by guardTimeout past the rule's delay.
func (b *Browser) mocked(p pausedRequest) bool {
	t := b.tabOf(p.context)
	if t == nil {
		return false
	}
	b.mu.Lock()
	owner := b.owner[t.id]
	uc := b.userContextOfLocked(t.id)
	b.mu.Unlock()
	m := &b.mocks
	m.mu.Lock()
	var rule *mockRule
	for _, r := range m.rules {
		if r.Expired || !r.applies(t.id, uc, owner) || (r.Method != "" && r.Method != p.method) ||
			(r.ResourceType != "" && r.ResourceType != p.rtype) || !r.match(p.url) {
			continue
		}
		rule = r
		break
	}
	if rule == nil {
		m.mu.Unlock()
		return false
	}
	rule.Hits++
	if rule.Times > 0 && rule.Hits >= rule.Times {
		rule.Expired = true
	}
	act := rule.MockRule
	fail := act.FailRate > 0 && rule.rng.Float64() < act.FailRate
	m.mu.Unlock()

	if act.Delay > 0 {
		// The rule's latency: this wait is the behaviour asked for.
		timer := time.NewTimer(act.Delay)
		select {
		case <-timer.C:
		case <-b.conn.Done():
			timer.Stop()
			return true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var method string
	params := map[string]any{"request": p.id}
	switch {
	case act.Action == driver.MockFail || fail:
		method = "network.failRequest"
	case act.Action == driver.MockFulfill:
		method = "network.provideResponse"
		status := act.Status
		if status == 0 {
			status = 200
		}
		names := make([]string, 0, len(act.Headers))
		for k := range act.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		headers := []any{}
		for _, k := range names {
			headers = append(headers, map[string]any{"name": k, "value": map[string]any{"type": "string", "value": act.Headers[k]}})
		}
		params["statusCode"] = status
		params["reasonPhrase"] = statusText(status)
		params["headers"] = headers
		params["body"] = map[string]any{"type": "base64", "value": base64.StdEncoding.EncodeToString(act.Body)}
	default:
		method = "network.continueRequest"
	}
	if err := b.conn.Call(ctx, method, params, nil); err != nil {
		b.o.logger().Debug("firefox: answering a mocked request", "method", method, "err", err)
	}
	return true
}

// statusText is the reason phrase of a status, "" when unknown.
func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 201:
		return "Created"
	case 204:
		return "No Content"
	case 301:
		return "Moved Permanently"
	case 302:
		return "Found"
	case 304:
		return "Not Modified"
	case 400:
		return "Bad Request"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 500:
		return "Internal Server Error"
	case 503:
		return "Service Unavailable"
	}
	return ""
}

// Mocks returns the rules q selects, in order of creation, and prunes
// (and returns apart) the tab rules whose tab has closed, as Chromium's
// Browser.Mocks does.
func (b *Browser) Mocks(ctx context.Context, q driver.MockQuery) (rules, pruned []driver.Mock, err error) {
	b.mu.Lock()
	open := make(map[string]bool, len(b.tabs))
	for id := range b.tabs {
		open[id] = true
	}
	owner, uc := b.owner[q.Tab], b.userContextOfLocked(q.Tab)
	b.mu.Unlock()
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
		if selects(&q, r, uc, owner) {
			rules = append(rules, r.Mock)
		}
	}
	return rules, pruned, nil
}

func selects(q *driver.MockQuery, r *mockRule, uc string, owner *driver.Scope) bool {
	if q.Scope != nil && r.owner != q.Scope {
		return false
	}
	if len(q.IDs) > 0 && !slices.Contains(q.IDs, r.ID) {
		return false
	}
	return q.Tab == "" || r.applies(q.Tab, uc, owner)
}

// ClearMocks removes the rules q selects and returns them, as Chromium's
// Browser.ClearMocks does: an id that names no rule the query could see
// is an error wrapping driver.ErrInvalidArgument, and then nothing is
// removed.
func (b *Browser) ClearMocks(ctx context.Context, q driver.MockQuery) ([]driver.Mock, error) {
	b.mu.Lock()
	owner, uc := b.owner[q.Tab], b.userContextOfLocked(q.Tab)
	b.mu.Unlock()
	m := &b.mocks
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range q.IDs {
		if !slices.ContainsFunc(m.rules, func(r *mockRule) bool { return r.ID == id && selects(&q, r, uc, owner) }) {
			return nil, fmt.Errorf("%w: no mock rule %d here", driver.ErrInvalidArgument, id)
		}
	}
	var gone []driver.Mock
	m.rules = slices.DeleteFunc(m.rules, func(r *mockRule) bool {
		if selects(&q, r, uc, owner) {
			gone = append(gone, r.Mock)
			return true
		}
		return false
	})
	return gone, nil
}
