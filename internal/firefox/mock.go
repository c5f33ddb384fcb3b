package firefox

import (
	"context"
	"encoding/base64"
	"net/http"
	"sort"
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

// pausedRequest is a request the intercept paused.
type pausedRequest struct {
	context, id, url, method, rtype string
	navigation                      bool
}

// userContextOfLocked returns the user context of tab id: its scope's own, or
// the default one. b.mu must be held.
func (b *Browser) userContextOfLocked(id string) string {
	if s := b.owner[id]; s != nil {
		if st := b.scopes[s]; st != nil && st.userContext != "" {
			return st.userContext
		}
	}
	return "default"
}

// mockTab is tab id as the mock table knows it. b.mu must be held.
func (b *Browser) mockTabLocked(id string) driver.MockTab {
	return driver.MockTab{ID: id, Context: b.userContextOfLocked(id), Owner: b.owner[id]}
}

// AddMock implements driver.TabDriver: a rule for the tab's requests (or,
// with r.Context, those of every tab of its user context that its scope
// owns), after the rules made before it. An invalid rule wraps
// driver.ErrInvalidArgument and changes nothing.
func (t *Tab) AddMock(ctx context.Context, r driver.MockRule) (driver.Mock, error) {
	b := t.b
	b.mu.Lock()
	mt := b.mockTabLocked(t.id)
	others := 0
	if r.Context && mt.Owner != nil {
		for id, o := range b.owner {
			if o != nil && o != mt.Owner && b.userContextOfLocked(id) == mt.Context {
				others++
			}
		}
	}
	b.mu.Unlock()
	if err := r.Check(); err != nil {
		return driver.Mock{}, err
	}
	if others > 0 {
		return driver.Mock{}, &driver.SharedScopeError{Others: others}
	}
	return b.mocks.Add(r, mt)
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
	mt := b.mockTabLocked(t.id)
	b.mu.Unlock()
	act, fail, ok := b.mocks.Take(mt, driver.MockRequest{URL: p.url, Method: p.method, ResourceType: p.rtype})
	if !ok {
		return false
	}
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
		params["reasonPhrase"] = http.StatusText(status)
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

// Mocks returns the rules q selects, in order of creation, and prunes
// (and returns apart) the tab rules whose tab has closed, as Chromium's
// Browser.Mocks does.
func (b *Browser) Mocks(ctx context.Context, q driver.MockQuery) (rules, pruned []driver.Mock, err error) {
	b.mu.Lock()
	open := make(map[string]bool, len(b.tabs))
	for id := range b.tabs {
		open[id] = true
	}
	mt := b.mockTabLocked(q.Tab)
	b.mu.Unlock()
	rules, pruned = b.mocks.List(q, mt, func(tab string) bool { return open[tab] })
	return rules, pruned, nil
}

// ClearMocks removes the rules q selects and returns them, as Chromium's
// Browser.ClearMocks does: an id that names no rule the query could see
// is an error wrapping driver.ErrInvalidArgument, and then nothing is
// removed.
func (b *Browser) ClearMocks(ctx context.Context, q driver.MockQuery) ([]driver.Mock, error) {
	b.mu.Lock()
	mt := b.mockTabLocked(q.Tab)
	b.mu.Unlock()
	return b.mocks.Clear(q, mt)
}
