package firefox

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// The URL guard: every request is intercepted at beforeRequestSent
// (network.addIntercept); a navigation request — a document of any tab or
// frame, its redirect hops, a popup — is judged by the URL policy before
// it leaves, and failed when refused; any other request is continued at
// once. So a page cannot take a tab where the policy forbids (a redirect to
// a private address, an iframe, window.open), as with Chromium's guard.

// guardTimeout bounds judging and answering one paused request.
const guardTimeout = 10 * time.Second

// blockMemory is how long a refusal is kept for the tab's BlockNote.
const blockMemory = 30 * time.Second

type blockRecord struct {
	url string
	err error
	at  time.Time
}

// startGuard subscribes to paused requests and adds the intercept. The
// handlers run before the intercept exists, so none is missed.
func (b *Browser) startGuard(ctx context.Context) error {
	b.conn.On(b.onRequest, "network.beforeRequestSent")
	if err := b.conn.Subscribe(ctx, "network.beforeRequestSent"); err != nil {
		return err
	}
	return b.conn.Call(ctx, "network.addIntercept", map[string]any{"phases": []string{"beforeRequestSent"}}, nil)
}

// onRequest runs on the connection's reader: it answers from a goroutine.
func (b *Browser) onRequest(e bidi.Event) {
	var p struct {
		Context    string  `json:"context"`
		IsBlocked  bool    `json:"isBlocked"`
		Navigation *string `json:"navigation"`
		Request    struct {
			Request       string  `json:"request"`
			URL           string  `json:"url"`
			Method        string  `json:"method"`
			Destination   string  `json:"destination"`
			InitiatorType *string `json:"initiatorType"`
		} `json:"request"`
	}
	if json.Unmarshal(e.Params, &p) != nil || !p.IsBlocked {
		return
	}
	r := p.Request
	go b.answer(pausedRequest{context: p.Context, id: r.Request, url: r.URL, method: r.Method, navigation: p.Navigation != nil,
		rtype: resourceType(r.Destination, r.InitiatorType, p.Navigation != nil)})
}

// answer judges a navigation request by the URL policy, then lets the
// mock rules answer it (mock.go), else continues it.
func (b *Browser) answer(p pausedRequest) {
	context_, request, url := p.context, p.id, p.url
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	var refused error
	if p.navigation {
		judge, jcancel := context.WithTimeout(ctx, guardTimeout/2)
		refused = b.policy().Check(judge, url)
		if refused == nil && judge.Err() != nil {
			refused = fmt.Errorf("firefox: judging %s took too long: %w", url, judge.Err())
		}
		jcancel()
	}
	if refused == nil && b.mocked(p) {
		return
	}
	if refused == nil {
		if err := b.conn.Call(ctx, "network.continueRequest", map[string]any{"request": request}, nil); err != nil {
			b.o.logger().Debug("firefox: continuing a request", "err", err)
		}
		return
	}
	b.noteBlock(context_, url, refused)
	if err := b.conn.Call(ctx, "network.failRequest", map[string]any{"request": request}, nil); err != nil {
		b.o.logger().Warn("firefox: failing a refused request", "err", err)
	}
}

func (b *Browser) policy() *policy.Policy {
	if b.o.URLPolicy != nil {
		return b.o.URLPolicy
	}
	return &policy.Policy{}
}

// noteBlock records a refusal against the tab the context belongs to.
func (b *Browser) noteBlock(context_, url string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	top := context_
	for i := 0; i < 64; i++ { // frames nest; bounded against a cycle
		p, ok := b.parents[top]
		if !ok {
			break
		}
		top = p
	}
	b.blocks[top] = blockRecord{url: url, err: err, at: time.Now()}
}

// blockSince returns the tab's refusal since start, if any, taking it so
// that it is reported once.
func (b *Browser) blockSince(tab string, start time.Time) *driver.BlockedError {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.blocks[tab]
	if !ok || r.at.Before(start) {
		return nil
	}
	delete(b.blocks, tab)
	return &driver.BlockedError{URL: r.url, Err: r.err}
}

// BlockNote implements driver.TabDriver: the guard's latest unreported
// refusal of a navigation in the tab, within blockMemory.
func (t *Tab) BlockNote() *driver.BlockedError {
	return t.b.blockSince(t.id, time.Now().Add(-blockMemory))
}
