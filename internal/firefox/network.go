package firefox

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// The request log, from network.beforeRequestSent, responseStarted,
// responseCompleted and fetchError: a tab's last driver.NetworkNavigations
// navigations' requests, at most netKeep, in the shape of Chromium's.
// Bodies come from a BiDi data collector (network.addDataCollector,
// network.getData), which Firefox keeps per request until cdpkit disowns
// it when the request leaves the log.

const (
	// netKeep is how many requests a tab keeps; older ones are dropped.
	netKeep = driver.DefaultNetworkBuffer
	// netURLChars caps a URL as the log keeps it.
	netURLChars = 2000
	// netHeaderChars caps one header value as the log keeps it.
	netHeaderChars = 4000
	// netBodyMax bounds a body the data collector keeps for a request.
	netBodyMax = 10 << 20
)

// netEntry is a kept request.
type netEntry struct {
	driver.RequestDetail
	reqID    string // BiDi's request id
	start    time.Time
	redirect bool // answered by a redirect: its body is not kept
}

// netLog is a tab's request log. The zero value is ready to use.
type netLog struct {
	mu     sync.Mutex
	list   []*netEntry          // guarded by mu; oldest first
	live   map[string]*netEntry // guarded by mu; the latest hop of each unfinished request
	lastID int                  // guarded by mu
	nav    int                  // guarded by mu; the current navigation
	// moved is closed and replaced when a request or a navigation of the
	// main frame starts or ends, or a prompt opens, for the action's
	// wait (settle.go).
	moved chan struct{} // guarded by mu
	// navStarted and navEnded count the main frame's navigations started
	// and ended (settle.go); guarded by mu.
	navStarted, navEnded int
}

// netEvent is the part of a network.* event cdpkit reads.
type netEvent struct {
	Context       string  `json:"context"`
	Navigation    *string `json:"navigation"`
	RedirectCount int     `json:"redirectCount"`
	Timestamp     int64   `json:"timestamp"`
	ErrorText     string  `json:"errorText"`
	Request       struct {
		Request       string       `json:"request"`
		URL           string       `json:"url"`
		Method        string       `json:"method"`
		Headers       []bidiHeader `json:"headers"`
		BodySize      *int64       `json:"bodySize"`
		Destination   string       `json:"destination"`
		InitiatorType *string      `json:"initiatorType"`
	} `json:"request"`
	Initiator *struct {
		Type string `json:"type"`
	} `json:"initiator"`
	Response *struct {
		Status        int          `json:"status"`
		StatusText    string       `json:"statusText"`
		FromCache     bool         `json:"fromCache"`
		Headers       []bidiHeader `json:"headers"`
		MIMEType      string       `json:"mimeType"`
		BytesReceived int64        `json:"bytesReceived"`
		Protocol      string       `json:"protocol"`
	} `json:"response"`
}

type bidiHeader struct {
	Name  string `json:"name"`
	Value struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"value"`
}

func headerMap(hs []bidiHeader) map[string]string {
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		v := h.Value.Value
		if h.Value.Type == "base64" {
			if b, err := base64.StdEncoding.DecodeString(v); err == nil {
				v = string(b)
			}
		}
		if old, ok := m[h.Name]; ok {
			v = old + ", " + v
		}
		m[h.Name] = cutTo(v, netHeaderChars)
	}
	return m
}

func cutTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// resourceType maps a request's fetch destination and initiator type to
// Chromium's resource types, as the log and mock rules name them.
func resourceType(destination string, initiatorType *string, navigation bool) string {
	switch destination {
	case "document", "iframe", "frame":
		return "document"
	case "script", "worker", "sharedworker", "serviceworker", "audioworklet", "paintworklet":
		return "script"
	case "style":
		return "stylesheet"
	case "image":
		return "image"
	case "font":
		return "font"
	case "audio", "video", "track":
		if destination == "track" {
			return "texttrack"
		}
		return "media"
	case "manifest":
		return "manifest"
	case "report":
		return "cspviolationreport"
	}
	if navigation {
		return "document"
	}
	if initiatorType != nil {
		switch *initiatorType {
		case "fetch":
			return "fetch"
		case "xmlhttprequest":
			return "xhr"
		case "beacon":
			return "ping"
		case "img", "image":
			return "image"
		case "script":
			return "script"
		case "link", "css":
			return "stylesheet"
		}
	}
	return "other"
}

// onNetwork records a network event in the log of the tab it came from;
// it runs on the connection's reader and never blocks.
func (b *Browser) onNetwork(e bidi.Event) {
	var p netEvent
	if json.Unmarshal(e.Params, &p) != nil || p.Request.Request == "" {
		return
	}
	t := b.tabOf(p.Context)
	if t == nil {
		return
	}
	var dropped []string
	switch e.Method {
	case "network.beforeRequestSent":
		dropped = t.net.sent(&p, p.Context == t.id)
	case "network.responseStarted":
		t.net.responded(&p, false)
	case "network.responseCompleted":
		t.net.responded(&p, true)
	case "network.fetchError":
		t.net.failed(&p)
	}
	if len(dropped) > 0 {
		go b.disown(dropped)
	}
}

// sent records a request (or its next redirect hop) and returns the
// requests that left the log, whose bodies Firefox may drop.
func (l *netLog) sent(p *netEvent, topLevel bool) (dropped []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live == nil {
		l.live = make(map[string]*netEntry)
	}
	if prev := l.live[p.Request.Request]; prev != nil {
		// The same request id again: the previous hop was redirected.
		prev.Done, prev.redirect = true, true
		prev.Duration = time.Since(prev.start)
	}
	nav := p.Navigation != nil
	if nav && topLevel && p.RedirectCount == 0 {
		l.nav++
		oldest := l.nav - driver.NetworkNavigations + 1
		i := 0
		for i < len(l.list) && l.list[i].Nav < oldest {
			dropped = append(dropped, l.forgetLocked(l.list[i]))
			i++
		}
		l.list = l.list[i:]
	}
	e := &netEntry{reqID: p.Request.Request, start: time.Now()}
	l.lastID++
	e.ID, e.Nav, e.Frame = l.lastID, l.nav, p.Context
	e.Method, e.URL = p.Request.Method, cutTo(p.Request.URL, netURLChars)
	e.Type = resourceType(p.Request.Destination, p.Request.InitiatorType, nav)
	e.RequestHeaders = headerMap(p.Request.Headers)
	e.HasBody = p.Request.BodySize != nil && *p.Request.BodySize > 0
	if p.Initiator != nil {
		e.Initiator = p.Initiator.Type
	}
	l.live[e.reqID] = e
	l.list = append(l.list, e)
	if over := len(l.list) - netKeep; over > 0 {
		for _, old := range l.list[:over] {
			dropped = append(dropped, l.forgetLocked(old))
		}
		l.list = append(l.list[:0:0], l.list[over:]...)
	}
	l.movedLocked()
	return dropped
}

func (l *netLog) forgetLocked(e *netEntry) string {
	if l.live[e.reqID] == e {
		delete(l.live, e.reqID)
	}
	return e.reqID
}

func (l *netLog) movedLocked() {
	if l.moved != nil {
		close(l.moved)
		l.moved = nil
	}
}

func (l *netLog) responded(p *netEvent, complete bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.live[p.Request.Request]
	if e == nil || p.Response == nil {
		return
	}
	r := p.Response
	e.Status, e.StatusText, e.MIMEType, e.Cached, e.Protocol = r.Status, r.StatusText, r.MIMEType, r.FromCache, r.Protocol
	if i := strings.IndexByte(e.MIMEType, ';'); i >= 0 {
		e.MIMEType = strings.TrimSpace(e.MIMEType[:i])
	}
	e.ResponseHeaders = headerMap(r.Headers)
	if complete {
		e.Done, e.Size = true, r.BytesReceived
		e.Duration = time.Since(e.start)
		delete(l.live, e.reqID)
		l.movedLocked()
	}
}

func (l *netLog) failed(p *netEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.live[p.Request.Request]
	if e == nil {
		return
	}
	e.Done, e.Failure = true, p.ErrorText
	if e.Failure == "" {
		e.Failure = "failed"
	}
	e.Duration = time.Since(e.start)
	delete(l.live, e.reqID)
	l.movedLocked()
}

// startCollecting adds the data collector that keeps response bodies for
// ResponseBody; a Firefox without one leaves bodies unavailable.
func (b *Browser) startCollecting(ctx context.Context) {
	var r struct {
		Collector string `json:"collector"`
	}
	err := b.conn.Call(ctx, "network.addDataCollector", map[string]any{
		"dataTypes": []string{"response"}, "maxEncodedDataSize": netBodyMax,
	}, &r)
	if err != nil {
		b.o.logger().Debug("firefox: no data collector; response bodies are unavailable", "err", err)
		return
	}
	b.mu.Lock()
	b.collector = r.Collector
	b.mu.Unlock()
}

// disown lets Firefox drop the bodies of requests that left a log.
func (b *Browser) disown(requests []string) {
	b.mu.Lock()
	c := b.collector
	b.mu.Unlock()
	if c == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, r := range requests {
		if err := b.conn.Call(ctx, "network.disownData", map[string]any{"dataType": "response", "collector": c, "request": r}, nil); err != nil && ctx.Err() != nil {
			return
		}
	}
}

// NetworkRequests implements driver.TabDriver, as on Chromium: the
// requests that match q, oldest first, and how many match in all. The log
// starts when the tab opens.
func (t *Tab) NetworkRequests(ctx context.Context, q driver.RequestQuery) ([]driver.Request, int, error) {
	if err := t.CheckCrashed(); err != nil {
		return nil, 0, err
	}
	t.catchUp(ctx)
	l := &t.net
	l.mu.Lock()
	defer l.mu.Unlock()
	out, total := driver.SelectRequests(&q, l.nav, l.list, func(e *netEntry) *driver.Request { return &e.Request })
	return out, total, nil
}

func (t *Tab) netEntry(id int) (*netEntry, error) {
	l := &t.net
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.list {
		if e.ID == id {
			return e, nil
		}
	}
	return nil, &driver.RequestError{ID: id, Gone: id > 0 && id <= l.lastID}
}

// NetworkRequest implements driver.TabDriver: one request with its
// headers (unredacted: redacting is the caller's). BiDi gives no timing
// phases or remote address, only the total.
func (t *Tab) NetworkRequest(ctx context.Context, id int) (driver.RequestDetail, error) {
	t.catchUp(ctx)
	e, err := t.netEntry(id)
	if err != nil {
		return driver.RequestDetail{}, err
	}
	t.net.mu.Lock()
	defer t.net.mu.Unlock()
	d := e.RequestDetail
	d.RequestHeaders = copyMap(e.RequestHeaders)
	d.ResponseHeaders = copyMap(e.ResponseHeaders)
	if e.Duration > 0 {
		d.Timing = map[string]float64{"total": float64(e.Duration.Microseconds()/100) / 10}
	}
	return d, nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// RequestPostData implements driver.TabDriver: BiDi's events carry no
// request body, so a body sent is driver.ErrBodyGone.
func (t *Tab) RequestPostData(ctx context.Context, id int) ([]byte, error) {
	if _, err := t.netEntry(id); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("firefox: request %d: %w", id, driver.ErrBodyGone)
}

// ResponseBody implements driver.TabDriver: network.getData from the
// data collector, which keeps bodies up to netBodyMax. A body it does not
// have is driver.ErrBodyGone.
func (t *Tab) ResponseBody(ctx context.Context, id int) ([]byte, bool, error) {
	e, err := t.netEntry(id)
	if err != nil {
		return nil, false, err
	}
	t.net.mu.Lock()
	done, failed, req := e.Done, e.Failure != "" || e.redirect, e.reqID
	t.net.mu.Unlock()
	t.b.mu.Lock()
	c := t.b.collector
	t.b.mu.Unlock()
	if !done || failed || c == "" {
		return nil, false, fmt.Errorf("firefox: request %d has no body kept: %w", id, driver.ErrBodyGone)
	}
	var r struct {
		Bytes struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"bytes"`
	}
	err = t.b.conn.Call(ctx, "network.getData", map[string]any{"dataType": "response", "collector": c, "request": req}, &r)
	var ce *bidi.CommandError
	if errors.As(err, &ce) {
		return nil, false, fmt.Errorf("firefox: request %d: %s: %w", id, ce.Code, driver.ErrBodyGone)
	}
	if err != nil {
		return nil, false, fmt.Errorf("firefox: reading the body of request %d: %w", id, err)
	}
	if r.Bytes.Type == "base64" {
		b, err := base64.StdEncoding.DecodeString(r.Bytes.Value)
		if err != nil {
			return nil, false, fmt.Errorf("firefox: decoding a body: %w", err)
		}
		return b, true, nil
	}
	return []byte(r.Bytes.Value), false, nil
}

// followActivity subscribes to the events the console and request logs
// and the action settle follow, and starts the data collector. Handlers
// are registered before the subscription, so none is missed.
func (b *Browser) followActivity(ctx context.Context) error {
	b.conn.On(func(e bidi.Event) { b.onLog(e.Params) }, "log.entryAdded")
	b.conn.On(b.onNetwork, "network.beforeRequestSent", "network.responseStarted", "network.responseCompleted", "network.fetchError")
	b.conn.On(b.onCommitted, "browsingContext.navigationCommitted")
	b.conn.On(b.onNavigation, "browsingContext.navigationStarted", "browsingContext.load", "browsingContext.fragmentNavigated",
		"browsingContext.navigationFailed")
	err := b.conn.Subscribe(ctx, "log.entryAdded", "network.responseStarted", "network.responseCompleted", "network.fetchError",
		"browsingContext.navigationCommitted", "browsingContext.navigationFailed")
	if err != nil {
		return err
	}
	b.startCollecting(ctx)
	return nil
}

// onCommitted clears a tab's console when its main frame commits a new
// document.
func (b *Browser) onCommitted(e bidi.Event) {
	var p struct {
		Context string `json:"context"`
	}
	if json.Unmarshal(e.Params, &p) != nil {
		return
	}
	b.mu.Lock()
	t := b.tabs[p.Context]
	b.mu.Unlock()
	if t != nil {
		t.console.navigated()
	}
}
