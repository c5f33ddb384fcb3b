package browser

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Bounds of a tab's request log.
const (
	// netURLChars caps a URL as the log keeps it (data: URLs can be huge).
	netURLChars = 2000
	// netHeaderChars caps one header value as the log keeps it.
	netHeaderChars = 4000
	// netPostChars caps a request body kept from its event; a longer one
	// is asked of the browser by [Tab.RequestPostData].
	netPostChars = 64 << 10
)

// netEntry is a kept request and what is needed to ask for its bodies.
type netEntry struct {
	driver.RequestDetail
	sess    *cdp.Session // the session the request was seen on
	reqID   network.RequestID
	start   float64 // monotonic seconds at requestWillBeSent
	timing  *network.ResourceTiming
	post    string // the body from the event, when short enough
	postCut bool   // the event's body was cut or absent though there is one
	// redirect says the request was answered by a redirect: its id now
	// names the next hop, whose body the browser would return.
	redirect bool
}

// netLog is a tab's request log: the last few navigations' requests,
// bounded, filled by one follower goroutine per session (the tab's, its
// out-of-process iframes' and workers'). The zero value is ready to use.
type netLog struct {
	mu     sync.Mutex
	list   []*netEntry                // guarded by mu; oldest first
	byReq  map[netKey]*netEntry       // guarded by mu; the latest hop of each live request
	extra  map[netKey]network.Headers // guarded by mu; request headers that arrived before their request
	lastID int                        // guarded by mu
	nav    int                        // guarded by mu; the current navigation
	keep   int                        // guarded by mu; 0 until first use
	cookie map[netKey]network.Headers // guarded by mu; response extra headers that arrived early
}

type netKey struct {
	sess string
	id   network.RequestID
}

// netEvents are the events a follower reads.
var netEvents = []string{"Network.requestWillBeSent", "Network.requestWillBeSentExtraInfo", "Network.responseReceived",
	"Network.responseReceivedExtraInfo", "Network.loadingFinished", "Network.loadingFailed", "Network.requestServedFromCache"}

// networkBuffer is the ring size: CDPKIT_NETWORK_BUFFER, else the default.
func networkBuffer() int {
	if n, err := strconv.Atoi(os.Getenv("CDPKIT_NETWORK_BUFFER")); err == nil && n > 0 {
		return n
	}
	return driver.DefaultNetworkBuffer
}

// follow records s's network events into the log until s closes. main
// is the tab's main frame id: its navigations start a new navigation
// number. Call it before Network.enable so nothing is missed.
func (l *netLog) follow(s *cdp.Session, main cdpapi.FrameID) {
	events, stop := s.SubscribeEvents(netEvents...)
	go func() {
		defer stop()
		for ev := range events {
			l.handle(s, main, ev)
		}
	}()
}

// enableNetwork follows s's requests into the tab's log, for a session
// other than the tab's own (an iframe's, a worker's).
func (t *Tab) enableNetwork(ctx context.Context, s *cdp.Session) {
	t.net.follow(s, cdpapi.FrameID(t.id))
	if _, err := cdpapi.Call(ctx, s, network.Enable, network.EnableParams{}); err != nil {
		t.b.log.Debug("enabling network events of a child target", "err", err)
	}
}

func (l *netLog) handle(s *cdp.Session, main cdpapi.FrameID, ev cdp.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keep == 0 {
		l.keep = networkBuffer()
		l.byReq = make(map[netKey]*netEntry)
		l.extra = make(map[netKey]network.Headers)
		l.cookie = make(map[netKey]network.Headers)
	}
	switch ev.Method {
	case "Network.requestWillBeSent":
		var p network.EventRequestWillBeSent
		if jsonv2.Unmarshal(ev.Params, &p) != nil || p.Request == nil {
			return
		}
		k := netKey{s.ID(), p.RequestID}
		if prev := l.byReq[k]; prev != nil && p.RedirectResponse != nil {
			prev.respond(p.RedirectResponse)
			prev.finish(p.Timestamp.Float64(), 0)
			prev.redirect = true
		}
		if p.RedirectResponse == nil && p.Type == network.ResourceTypeDocument && p.FrameID == main && string(p.RequestID) == string(p.LoaderID) {
			l.navigated()
		}
		e := &netEntry{sess: s, reqID: p.RequestID, start: p.Timestamp.Float64()}
		l.lastID++
		e.ID, e.Nav = l.lastID, l.nav
		e.Method, e.URL, e.Type, e.Frame = p.Request.Method, cut(p.Request.URL+p.Request.URLFragment, netURLChars), strings.ToLower(string(p.Type)), string(p.FrameID)
		if e.Type == "" {
			e.Type = "other"
		}
		e.RequestHeaders = flatHeaders(p.Request.Headers)
		if h, ok := l.extra[k]; ok {
			mergeHeaders(e.RequestHeaders, h)
			delete(l.extra, k)
		}
		e.HasBody = p.Request.HasPostData
		for _, d := range p.Request.PostDataEntries {
			e.post += string(d.Bytes)
		}
		if len(e.post) > netPostChars {
			e.post = ""
		}
		e.postCut = e.HasBody && e.post == ""
		e.Initiator = initiator(p.Initiator)
		l.byReq[k] = e
		l.list = append(l.list, e)
		l.trim()
	case "Network.requestWillBeSentExtraInfo":
		var p network.EventRequestWillBeSentExtraInfo
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			return
		}
		k := netKey{s.ID(), p.RequestID}
		if e := l.byReq[k]; e != nil {
			mergeHeaders(e.RequestHeaders, p.Headers)
		} else if len(l.extra) < l.keep {
			l.extra[k] = p.Headers
		}
	case "Network.responseReceived":
		var p network.EventResponseReceived
		if jsonv2.Unmarshal(ev.Params, &p) != nil || p.Response == nil {
			return
		}
		k := netKey{s.ID(), p.RequestID}
		if e := l.byReq[k]; e != nil {
			e.respond(p.Response)
			if h, ok := l.cookie[k]; ok {
				mergeHeaders(e.ResponseHeaders, h)
				delete(l.cookie, k)
			}
		}
	case "Network.responseReceivedExtraInfo":
		var p network.EventResponseReceivedExtraInfo
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			return
		}
		k := netKey{s.ID(), p.RequestID}
		if e := l.byReq[k]; e != nil && e.ResponseHeaders != nil {
			mergeHeaders(e.ResponseHeaders, p.Headers)
		} else if len(l.cookie) < l.keep {
			l.cookie[k] = p.Headers
		}
	case "Network.requestServedFromCache":
		var p network.EventRequestServedFromCache
		if jsonv2.Unmarshal(ev.Params, &p) == nil {
			if e := l.byReq[netKey{s.ID(), p.RequestID}]; e != nil {
				e.Cached = true
			}
		}
	case "Network.loadingFinished":
		var p network.EventLoadingFinished
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			return
		}
		k := netKey{s.ID(), p.RequestID}
		if e := l.byReq[k]; e != nil {
			e.finish(p.Timestamp.Float64(), int64(p.EncodedDataLength))
			delete(l.byReq, k)
		}
	case "Network.loadingFailed":
		var p network.EventLoadingFailed
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			return
		}
		k := netKey{s.ID(), p.RequestID}
		if e := l.byReq[k]; e != nil {
			e.finish(p.Timestamp.Float64(), 0)
			e.Failure = p.ErrorText
			if p.Canceled && e.Failure == "" {
				e.Failure = "canceled"
			}
			if p.BlockedReason != "" {
				e.Failure += " (" + string(p.BlockedReason) + ")"
			}
			delete(l.byReq, k)
		}
	}
}

// navigated starts a new navigation and drops the requests of those
// beyond driver.NetworkNavigations. l.mu must be held.
func (l *netLog) navigated() {
	l.nav++
	oldest := l.nav - driver.NetworkNavigations + 1
	i := 0
	for i < len(l.list) && l.list[i].Nav < oldest {
		l.forget(l.list[i])
		i++
	}
	l.list = l.list[i:]
}

// trim drops the oldest requests beyond the ring's size. l.mu must be held.
func (l *netLog) trim() {
	if over := len(l.list) - l.keep; over > 0 {
		for _, e := range l.list[:over] {
			l.forget(e)
		}
		l.list = append(l.list[:0:0], l.list[over:]...)
	}
}

func (l *netLog) forget(e *netEntry) {
	k := netKey{e.sess.ID(), e.reqID}
	if l.byReq[k] == e {
		delete(l.byReq, k)
	}
}

func (e *netEntry) respond(r *network.Response) {
	e.Status, e.StatusText, e.MIMEType = int(r.Status), r.StatusText, r.MimeType
	e.ResponseHeaders = flatHeaders(r.Headers)
	if len(r.RequestHeaders) > 0 {
		mergeHeaders(e.RequestHeaders, r.RequestHeaders)
	}
	e.timing, e.RemoteIP, e.Protocol = r.Timing, r.RemoteIPAddress, r.Protocol
	if r.RemoteIPAddress != "" && r.RemotePort != 0 {
		e.RemoteIP = fmt.Sprintf("%s:%d", r.RemoteIPAddress, r.RemotePort)
	}
	if r.FromDiskCache || r.FromPrefetchCache {
		e.Cached = true
	}
}

func (e *netEntry) finish(at float64, size int64) {
	e.Done = true
	e.Size = size
	if at > e.start && e.start > 0 {
		e.Duration = time.Duration((at - e.start) * float64(time.Second))
	}
}

// phases returns the request's timing phases in ms.
func (e *netEntry) phases() map[string]float64 {
	m := map[string]float64{}
	if e.Duration > 0 {
		m["total"] = ms(e.Duration.Seconds() * 1000)
	}
	t := e.timing
	if t == nil {
		return m
	}
	if blocked := (t.RequestTime - e.start) * 1000; blocked > 0 {
		m["blocked"] = ms(blocked)
	}
	span := func(name string, a, b float64) {
		if a >= 0 && b >= a {
			m[name] = ms(b - a)
		}
	}
	span("dns", t.DNSStart, t.DNSEnd)
	span("connect", t.ConnectStart, t.ConnectEnd)
	span("ssl", t.SslStart, t.SslEnd)
	span("send", t.SendStart, t.SendEnd)
	span("wait", t.SendEnd, t.ReceiveHeadersEnd)
	if e.Duration > 0 {
		end := (e.start + e.Duration.Seconds() - t.RequestTime) * 1000
		span("receive", t.ReceiveHeadersEnd, end)
	}
	return m
}

func ms(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

func initiator(i *network.Initiator) string {
	if i == nil {
		return ""
	}
	s := string(i.Type)
	switch {
	case i.URL != "":
		s += " " + cut(i.URL, 300) + ":" + strconv.Itoa(int(i.LineNumber)+1)
	case i.Stack != nil && len(i.Stack.CallFrames) > 0:
		f := i.Stack.CallFrames[0]
		s += fmt.Sprintf(" %s %s:%d", f.FunctionName, cut(f.URL, 300), f.LineNumber+1)
	}
	return s
}

func flatHeaders(h network.Headers) map[string]string {
	m := make(map[string]string, len(h))
	mergeHeaders(m, h)
	return m
}

// mergeHeaders adds h to m, replacing names that differ only in case:
// the extra-info events carry what went over the wire (Cookie included).
func mergeHeaders(m map[string]string, h network.Headers) {
	if m == nil {
		return
	}
	for k, v := range h {
		for old := range m {
			if strings.EqualFold(old, k) && old != k {
				delete(m, old)
			}
		}
		m[k] = cut(fmt.Sprint(v), netHeaderChars)
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
