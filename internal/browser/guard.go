package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// The guard holds every document request of every frame of every tab —
// the first URL, each redirect hop, iframes, popups, link clicks, meta
// refresh, scripted location changes — until the URL policy has judged
// it, and fails the ones it refuses before they leave the browser.
//
// Fetch.enable on the browser's own session intercepts the requests of all
// targets, including tabs opened by window.open before anyone attaches to
// them (TestGuardPageInitiated checks this), so one subscription on
// the browser session covers everything.
const (
	// guardWorkers bounds the requests judged at once; more wait their
	// turn in the event queue.
	guardWorkers = 16
	// guardAnswerTimeout bounds judging one request and answering it.
	guardAnswerTimeout = 5 * time.Second
	// blockMemory is how long a refusal is remembered to explain a failed
	// navigation.
	blockMemory = 30 * time.Second
)

// guard judges paused document requests; see startGuard.
type guard struct {
	sess   *cdp.Session // the browser session
	policy *policy.Policy
	log    *slog.Logger

	mu     sync.Mutex
	blocks map[cdpapi.FrameID]block // guarded by mu; the last refusal per frame
}

type block struct {
	url string
	err error
	at  time.Time
}

// startGuard enables document interception on the browser session and
// answers every paused request until the connection closes. The context
// bounds only the enabling.
func startGuard(ctx context.Context, conn *cdp.Conn, p *policy.Policy, log *slog.Logger) (*guard, error) {
	g := &guard{sess: conn.Browser(), policy: p, log: log, blocks: make(map[cdpapi.FrameID]block)}
	events, stop := g.sess.SubscribeEvents("Fetch.requestPaused")
	patterns := []*fetch.RequestPattern{{
		URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest,
	}}
	if len(p.FileDirs) > 0 {
		// A file: page's images, scripts and frames read the disk too:
		// every file: request is judged, not only documents.
		patterns = append(patterns, &fetch.RequestPattern{URLPattern: "file:*", RequestStage: fetch.RequestStageRequest})
	}
	if _, err := cdpapi.Call(ctx, g.sess, fetch.Enable, fetch.EnableParams{Patterns: patterns}); err != nil {
		stop()
		return nil, fmt.Errorf("browser: enabling the URL guard: %w", err)
	}
	go func() {
		defer stop()
		sem := make(chan struct{}, guardWorkers)
		for ev := range events {
			var p fetch.EventRequestPaused
			if err := jsonv2.Unmarshal(ev.Params, &p); err != nil || p.Request == nil {
				g.log.Warn("guard: undecodable paused request", "err", err)
				continue
			}
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				g.answer(&p)
			}()
		}
	}()
	return g, nil
}

// answer judges one paused request and continues or fails it. It never
// leaves a request paused for longer than guardAnswerTimeout: a policy
// that cannot decide in time refuses.
func (g *guard) answer(p *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(context.Background(), guardAnswerTimeout)
	defer cancel()
	judge, jcancel := context.WithTimeout(ctx, guardAnswerTimeout/2)
	err := g.policy.Check(judge, p.Request.URL)
	if err == nil && judge.Err() != nil {
		err = fmt.Errorf("browser: judging %s took too long: %w", p.Request.URL, judge.Err())
	}
	jcancel()
	if err == nil {
		if _, err := cdpapi.Call(ctx, g.sess, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: p.RequestID}); err != nil {
			g.log.Debug("guard: continuing a request", "err", err)
		}
		return
	}
	g.log.Info("blocked a document request", "url", p.Request.URL, "frame", p.FrameID, "rule", err.Error())
	g.mu.Lock()
	now := time.Now()
	for id, b := range g.blocks {
		if now.Sub(b.at) > blockMemory {
			delete(g.blocks, id)
		}
	}
	g.blocks[p.FrameID] = block{url: p.Request.URL, err: err, at: now}
	g.mu.Unlock()
	if _, err := cdpapi.Call(ctx, g.sess, fetch.FailRequest, fetch.FailRequestParams{RequestID: p.RequestID, ErrorReason: network.ErrorReasonBlockedByClient}); err != nil {
		g.log.Debug("guard: failing a request", "err", err)
	}
}

// blockedSince returns the guard's refusal of a document request in frame
// since start, or nil.
func (g *guard) blockedSince(frame cdpapi.FrameID, start time.Time) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.blocks[frame]
	if !ok || b.at.Before(start) {
		return nil
	}
	return &driver.BlockedError{URL: b.url, Err: b.err}
}

// explainBlock turns a navigation that failed with ERR_BLOCKED_BY_CLIENT
// into the guard's reason, when the guard blocked this tab's main frame
// since start, and one that failed because the egress proxy refused its
// host into the proxy's reason. Other errors pass through.
func (t *Tab) explainBlock(err error, start time.Time) error {
	var ne *driver.NavigationError
	if err == nil || !errors.As(err, &ne) {
		return err
	}
	if strings.Contains(ne.Text, "ERR_BLOCKED_BY_CLIENT") {
		// A page's main frame has its target's id.
		if b := t.b.guard.blockedSince(cdpapi.FrameID(t.id), start); b != nil {
			t.blockSeen.Store(time.Now().UnixNano()) // the error reports it: no note too
			return b
		}
	}
	if t.b.proc != nil && t.b.proc.egress != nil {
		if u, perr := url.Parse(ne.URL); perr == nil && u.Host != "" {
			port := u.Port()
			if port == "" {
				port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
			}
			if r := t.b.proc.egress.refusedSince(net.JoinHostPort(u.Hostname(), port), start); r != nil {
				return &driver.BlockedError{URL: ne.URL, Err: r}
			}
		}
	}
	return err
}
