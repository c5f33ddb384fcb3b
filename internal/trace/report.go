package trace

import (
	"cmp"
	"maps"
	"math"
	"net/url"
	"slices"
)

// Report is what a trace measured. Times are in milliseconds; a moment
// ("at") is counted from the navigation's start, or from the trace's
// start when the trace holds no navigation of the page.
type Report struct {
	URL        string  `json:"url,omitempty"`
	Navigation bool    `json:"navigation"` // the trace holds the page's load
	DurationMS float64 `json:"durationMs"` // the trace's span
	Events     int     `json:"events"`

	FCP      *float64     `json:"fcpMs,omitempty"`
	LCP      *LCP         `json:"lcp,omitempty"`
	CLS      CLS          `json:"cls"`
	TBT      float64      `json:"tbtMs"`
	TBTFrom  string       `json:"tbtFrom"` // "fcp", "navigation" or "trace start"
	Tasks    []LongTask   `json:"longTasks,omitempty"`
	INP      *INP         `json:"inp,omitempty"`
	Main     []Category   `json:"mainThread,omitempty"`
	Blocking []Request    `json:"renderBlocking,omitempty"`
	Document *Document    `json:"document,omitempty"`
	Parties  []ThirdParty `json:"thirdParties,omitempty"`
}

// LCP is the Largest Contentful Paint and its phases.
type LCP struct {
	MS       float64 `json:"ms"`
	Type     string  `json:"type"`               // image or text
	NodeName string  `json:"nodeName,omitempty"` // the element's tag, such as IMG
	NodeID   int64   `json:"nodeId,omitempty"`   // its DOM node id (backend node id)
	URL      string  `json:"url,omitempty"`      // an image's URL
	Phases   Phases  `json:"phases"`
}

// Phases split an LCP, as DevTools' LCP breakdown does: time to first
// byte, then (for an image) the delay before its request starts and its
// load, then the render delay until it is painted. They add up to the
// LCP.
type Phases struct {
	TTFB         float64  `json:"ttfbMs"`
	LoadDelay    *float64 `json:"loadDelayMs,omitempty"`
	LoadDuration *float64 `json:"loadDurationMs,omitempty"`
	RenderDelay  float64  `json:"renderDelayMs"`
}

// CLS is the Cumulative Layout Shift: the largest session window of
// shifts (shifts less than 1 s apart, at most 5 s long) not caused by
// recent input, with the nodes that moved in that window.
type CLS struct {
	Value  float64 `json:"value"`
	Shifts int     `json:"shifts"` // in the worst window
	Nodes  []Node  `json:"nodes,omitempty"`
}

// Node is an element that shifted, with the score of the shifts it took
// part in.
type Node struct {
	Name  string  `json:"name"` // as the trace names it: IMG id='hero'
	Score float64 `json:"score"`
}

// LongTask is a main-thread task of 50 ms or more.
type LongTask struct {
	AtMS     float64 `json:"atMs"`
	MS       float64 `json:"ms"`
	URL      string  `json:"url,omitempty"`      // the script it ran most, when the trace names it
	Function string  `json:"function,omitempty"` // the function, or the event it handled
	Line     int64   `json:"line,omitempty"`     // 1-based
}

// INP is the Interaction to Next Paint of the interactions in the trace.
type INP struct {
	MS           float64 `json:"ms"`
	Type         string  `json:"type"` // of the slowest interaction, such as pointerup
	Interactions int     `json:"interactions"`
}

// Category is main-thread time spent on one kind of work.
type Category struct {
	Name string  `json:"name"`
	MS   float64 `json:"ms"`
}

// Request is a network request.
type Request struct {
	URL      string  `json:"url"`
	StartMS  float64 `json:"startMs"`
	MS       float64 `json:"ms"` // until its last byte; -1 when it did not finish in the trace
	Blocking string  `json:"blocking,omitempty"`
	Type     string  `json:"type,omitempty"`
	Bytes    int64   `json:"bytes,omitempty"`
}

// Document is the main document's request.
type Document struct {
	URL    string  `json:"url"`
	Status int64   `json:"status"`
	TTFB   float64 `json:"ttfbMs"` // navigation start to the response's first byte
	MS     float64 `json:"ms"`     // navigation start to its last byte
	Bytes  int64   `json:"bytes"`
}

// ThirdParty is main-thread script time by the origin of the script.
type ThirdParty struct {
	Origin string  `json:"origin"`
	MS     float64 `json:"ms"`
	First  bool    `json:"firstParty,omitempty"` // the page's own origin
}

// report turns what the pass kept into a Report.
func (a *analyzer) report() *Report {
	r := &Report{Events: a.n, URL: a.startURL}
	if a.last > a.first {
		r.DurationMS = ms(a.last - a.first)
	}
	for _, t := range a.threads {
		t.flush()
	}
	nav := a.pickNav()
	base := a.first
	var mainKey threadKey
	if nav != nil {
		r.Navigation, r.URL, base, mainKey = true, nav.url, nav.ts, nav.thread
	} else {
		mainKey = a.mainThread()
	}
	at := func(ts float64) float64 { return round1(ms(ts - base)) }

	var doc *request
	if nav != nil {
		doc = a.requests[nav.id]
		if doc == nil {
			doc = a.firstRequest(func(q *request) bool {
				return q.resourceType == "Document" && q.frame == a.mainFrame && q.start >= nav.ts
			})
		}
		if doc != nil && doc.headers > 0 {
			r.Document = &Document{URL: doc.url, Status: doc.status, TTFB: at(doc.headers), Bytes: doc.bytes}
			if doc.end > 0 {
				r.Document.MS = at(doc.end)
			}
		}
		if nav.fcp > 0 {
			v := at(nav.fcp)
			r.FCP = &v
		}
		if c := nav.lcp; c != nil {
			r.LCP = a.lcp(c, nav, doc, at)
		}
	}

	tbtFrom := base
	r.TBTFrom = "trace start"
	if nav != nil {
		r.TBTFrom = "navigation"
		if nav.fcp > 0 {
			tbtFrom, r.TBTFrom = nav.fcp, "fcp"
		}
	}
	if t := a.threads[mainKey]; t != nil {
		for _, tk := range t.tasks {
			if nav != nil && tk.ts+tk.dur < nav.ts {
				continue
			}
			lt := LongTask{AtMS: at(tk.ts), MS: round1(ms(tk.dur))}
			if s := tk.script; s != nil {
				lt.URL, lt.Function = s.url, s.fn
				if s.url != "" {
					lt.Line = s.line + 1
				}
			}
			r.Tasks = append(r.Tasks, lt)
			if blocking := tk.ts + tk.dur - max(tk.ts, tbtFrom); blocking > longTaskMin {
				r.TBT += ms(blocking - longTaskMin)
			}
		}
		r.TBT = round1(r.TBT)
		for _, name := range slices.Sorted(maps.Keys(t.self)) {
			if v := ms(t.self[name]); v >= 0.05 {
				r.Main = append(r.Main, Category{Name: name, MS: round1(v)})
			}
		}
		slices.SortStableFunc(r.Main, func(x, y Category) int { return cmp.Compare(y.MS, x.MS) })
		pageOrigin := origin(r.URL)
		for o, v := range t.scriptByOrigin {
			r.Parties = append(r.Parties, ThirdParty{Origin: o, MS: round1(ms(v)), First: o == pageOrigin})
		}
		slices.SortFunc(r.Parties, func(x, y ThirdParty) int {
			return cmp.Or(cmp.Compare(y.MS, x.MS), cmp.Compare(x.Origin, y.Origin))
		})
	}
	r.CLS = a.cls(nav)
	r.INP = a.inp()
	for _, q := range a.requests {
		if q.frame != a.mainFrame || (nav != nil && q.start < nav.ts) {
			continue
		}
		if q.renderBlocking != "blocking" && q.renderBlocking != "in_body_parser_blocking" {
			continue
		}
		req := Request{URL: q.url, StartMS: at(q.start), MS: -1, Blocking: q.renderBlocking, Type: q.resourceType, Bytes: q.bytes}
		if q.end > 0 {
			req.MS = round1(ms(q.end - q.start))
		}
		r.Blocking = append(r.Blocking, req)
	}
	slices.SortFunc(r.Blocking, func(x, y Request) int {
		return cmp.Or(cmp.Compare(dur(y), dur(x)), cmp.Compare(x.URL, y.URL))
	})
	return r
}

// dur orders an unfinished request as the slowest.
func dur(q Request) float64 {
	if q.MS < 0 {
		return math.Inf(1)
	}
	return q.MS
}

// pickNav returns the navigation the report is about: the latest one of
// the main frame.
func (a *analyzer) pickNav() *navigation { return a.nav("") }

// mainThread returns the main thread of the traced page's renderer when
// the trace holds no navigation: the thread named CrRendererMain in the
// process the page was in, else the busiest CrRendererMain.
func (a *analyzer) mainThread() threadKey {
	var best threadKey
	busiest := -1.0
	for k, name := range a.names {
		if name != "CrRendererMain" {
			continue
		}
		if k.pid == a.startPid {
			return k
		}
		if t := a.threads[k]; t != nil && t.busy > busiest {
			best, busiest = k, t.busy
		}
	}
	return best
}

func (a *analyzer) firstRequest(match func(*request) bool) *request {
	var first *request
	for _, q := range a.requests {
		if match(q) && (first == nil || q.start < first.start) {
			first = q
		}
	}
	return first
}

// lcp builds the LCP and its phases.
func (a *analyzer) lcp(c *lcpCandidate, nav *navigation, doc *request, at func(float64) float64) *LCP {
	l := &LCP{MS: at(c.ts), Type: c.kind, NodeName: c.nodeName, NodeID: c.nodeID}
	ttfb := nav.ts
	if doc != nil && doc.headers > 0 && doc.headers <= c.ts {
		ttfb = doc.headers
	}
	l.Phases.TTFB = at(ttfb)
	renderFrom := ttfb
	if c.kind == "image" {
		l.URL = a.images[c.nodeID]
		var img *request
		if l.URL != "" {
			img = a.firstRequest(func(q *request) bool { return q.url == l.URL && q.start >= nav.ts })
		}
		if img != nil && img.end > 0 && img.end <= c.ts {
			start := max(img.start, ttfb)
			delay, load := round1(ms(start-ttfb)), round1(ms(img.end-start))
			l.Phases.LoadDelay, l.Phases.LoadDuration = &delay, &load
			renderFrom = img.end
		}
	}
	l.Phases.RenderDelay = round1(ms(c.ts - renderFrom))
	return l
}

// cls computes the CLS of the shifts after the navigation.
func (a *analyzer) cls(nav *navigation) CLS {
	var best CLS
	var winStart, prev, sum float64
	var win []shift
	flush := func() {
		if sum <= best.Value {
			return
		}
		best = CLS{Value: sum, Shifts: len(win)}
		byNode := map[string]float64{}
		for _, s := range win {
			for _, n := range s.nodes {
				byNode[n] += s.score
			}
		}
		for n, v := range byNode {
			best.Nodes = append(best.Nodes, Node{Name: n, Score: round4(v)})
		}
		slices.SortFunc(best.Nodes, func(x, y Node) int { return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(x.Name, y.Name)) })
	}
	for _, s := range a.shifts {
		if s.hadInput || (nav != nil && s.ts < nav.ts) {
			continue
		}
		if len(win) > 0 && (s.ts-prev > 1e6 || s.ts-winStart > 5e6) {
			flush()
			win, sum = nil, 0
		}
		if len(win) == 0 {
			winStart = s.ts
		}
		win = append(win, s)
		sum += s.score
		prev = s.ts
	}
	flush()
	best.Value = round4(best.Value)
	return best
}

// inp is the slowest interaction's duration, or with 50 interactions or
// more, the 98th percentile (one in fifty left out), as the metric says.
func (a *analyzer) inp() *INP {
	if len(a.inputs) == 0 {
		return nil
	}
	all := slices.Collect(maps.Values(a.inputs))
	slices.SortFunc(all, func(x, y *interaction) int { return cmp.Compare(y.duration, x.duration) })
	pick := all[min(len(all)/50, len(all)-1)]
	return &INP{MS: round1(pick.duration), Type: pick.kind, Interactions: len(all)}
}

func ms(us float64) float64 { return us / 1000 }

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// shortURL shows a URL as its path (and query) when it is on the page's
// origin, else whole; cut to n characters.
func shortURL(raw, page string, n int) string {
	s := raw
	if u, err := url.Parse(raw); err == nil && page != "" && origin(raw) == origin(page) {
		s = u.RequestURI()
	}
	if len(s) > n {
		s = s[:n-1] + "…"
	}
	return s
}
