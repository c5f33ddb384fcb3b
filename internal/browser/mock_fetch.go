package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Arming tabs for the fake backend's rules (mock.go) and answering their
// paused requests.

// armMocks enables interception on t, and with all on every tab cdpkit has
// attached in bctx.
func (b *Browser) armMocks(ctx context.Context, t *Tab, all bool, bctx cdpapi.BrowserContextID) error {
	tabs := []*Tab{t}
	if all {
		b.mu.Lock()
		for _, o := range b.tabs {
			if o != t {
				tabs = append(tabs, o)
			}
		}
		b.mu.Unlock()
	}
	for _, o := range tabs {
		if o != t {
			if c, err := b.contextOf(ctx, o.id); err != nil || c != bctx {
				continue
			}
		}
		s, err := o.session(ctx) // arms it, see armSession
		if err != nil {
			if o == t {
				return err
			}
			continue
		}
		if err := b.armSession(ctx, o, s); err != nil && o == t {
			return err
		}
	}
	return nil
}

// armSession enables interception on a tab's session if a rule applies to
// the tab and it is not armed yet. Tab.Session calls it for each new
// session, so rules survive a reattach.
func (b *Browser) armSession(ctx context.Context, t *Tab, s *cdp.Session) error {
	m := &b.mocks
	m.mu.Lock()
	armed := m.armed[s] != nil && m.armed[s].enabled
	m.mu.Unlock()
	if armed || m.rules.Empty() {
		return nil
	}
	bctx, err := b.contextOf(ctx, t.id)
	if err != nil {
		return err
	}
	mt := mockTab(t.id, bctx, b.ownerOf(t.id)) // a tab's owner is read before m.mu, never under it
	m.mu.Lock()
	need := m.rules.Applies(mt)
	st := m.armed[s]
	if !need || (st != nil && st.enabled) {
		m.mu.Unlock()
		return nil
	}
	follow := st == nil
	if follow {
		if m.armed == nil {
			m.armed = make(map[*cdp.Session]*armState)
		}
		st = &armState{tab: t.id}
		m.armed[s] = st
	}
	st.enabled = true
	m.mu.Unlock()
	if follow {
		events, stop := s.SubscribeEvents("Fetch.requestPaused")
		go func() {
			defer stop()
			sem := make(chan struct{}, mockWorkers)
			for ev := range events {
				var p fetch.EventRequestPaused
				if err := jsonv2.Unmarshal(ev.Params, &p); err != nil || p.Request == nil {
					b.log.Warn("mock: undecodable paused request", "err", err)
					continue
				}
				sem <- struct{}{}
				go func() {
					defer func() { <-sem }()
					b.answerMocked(s, t.id, bctx, &p)
				}()
			}
			m.mu.Lock()
			delete(m.armed, s)
			m.mu.Unlock()
		}()
	}
	if _, err := cdpapi.Call(ctx, s, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{
		URLPattern: "*", RequestStage: fetch.RequestStageRequest,
	}}}); err != nil {
		m.mu.Lock()
		st.enabled = false
		m.mu.Unlock()
		return fmt.Errorf("browser: arming mocks: %w", err)
	}
	return nil
}

// answerMocked answers one paused request of tab id: the guard's verdict
// first for a document, then the first live rule that matches, else
// continue. It never leaves the request paused past its delay and
// mockAnswerTimeout.
func (b *Browser) answerMocked(s *cdp.Session, id target.ID, bctx cdpapi.BrowserContextID, p *fetch.EventRequestPaused) {
	url := p.Request.URL + p.Request.URLFragment
	rtype := strings.ToLower(string(p.ResourceType))
	owner := b.ownerOf(id)
	act, fail, ok := b.mocks.rules.Take(mockTab(id, bctx, owner), driver.MockRequest{URL: url, Method: p.Request.Method, ResourceType: rtype})
	ctx, cancel := context.WithTimeout(context.Background(), act.Delay+mockAnswerTimeout)
	defer cancel()
	if ok && p.ResourceType == network.ResourceTypeDocument && b.guard != nil {
		if err := b.guard.refuses(ctx, p); err != nil {
			b.answer(ctx, s, "failing a blocked request", "Fetch.failRequest", fetch.FailRequestParams{RequestID: p.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			return
		}
	}
	if !ok {
		b.answer(ctx, s, "continuing a request", "Fetch.continueRequest", fetch.ContinueRequestParams{RequestID: p.RequestID})
		return
	}
	if act.Delay > 0 {
		// The rule's latency: this wait is the behaviour asked for.
		select {
		case <-time.After(act.Delay):
		case <-s.Done():
			return
		}
	}
	reason := network.ErrorReason(act.Reason)
	if reason == "" {
		reason = network.ErrorReasonFailed
	}
	switch {
	case act.Action == driver.MockFail || fail:
		b.answer(ctx, s, "failing a mocked request", "Fetch.failRequest", fetch.FailRequestParams{RequestID: p.RequestID, ErrorReason: reason})
	case act.Action == driver.MockFulfill:
		status := act.Status
		if status == 0 {
			status = 200
		}
		var headers []*fetch.HeaderEntry
		for k, v := range act.Headers {
			headers = append(headers, &fetch.HeaderEntry{Name: k, Value: v})
		}
		slices.SortFunc(headers, func(a, b *fetch.HeaderEntry) int { return strings.Compare(a.Name, b.Name) })
		b.answer(ctx, s, "fulfilling a mocked request", "Fetch.fulfillRequest", fetch.FulfillRequestParams{
			RequestID: p.RequestID, ResponseCode: int64(status), ResponseHeaders: headers, Body: act.Body,
		})
	default:
		b.answer(ctx, s, "continuing a mocked request", "Fetch.continueRequest", fetch.ContinueRequestParams{RequestID: p.RequestID})
	}
}

// answer sends one Fetch answer; failures (the tab went away) are logged.
func (b *Browser) answer(ctx context.Context, s *cdp.Session, what, method string, params any) {
	if err := s.Call(ctx, method, params, nil); err != nil {
		b.log.Debug("mock: "+what, "err", err)
	}
}

// refuses judges a document request by the guard's policy and, when it is
// refused, remembers the refusal as the guard does, so the navigation
// fails with the guard's reason.
func (g *guard) refuses(ctx context.Context, p *fetch.EventRequestPaused) error {
	judge, cancel := context.WithTimeout(ctx, guardAnswerTimeout/2)
	defer cancel()
	err := g.policy.Check(judge, p.Request.URL)
	if err == nil && judge.Err() != nil {
		err = fmt.Errorf("browser: judging %s took too long: %w", p.Request.URL, judge.Err())
	}
	if err == nil {
		return nil
	}
	g.log.Info("blocked a mocked document request", "url", p.Request.URL, "frame", p.FrameID, "rule", err.Error())
	g.mu.Lock()
	g.blocks[p.FrameID] = block{url: p.Request.URL, err: err, at: time.Now()}
	g.mu.Unlock()
	return err
}
