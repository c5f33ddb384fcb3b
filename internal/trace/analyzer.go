package trace

import (
	"encoding/json"
	"strings"
)

// Bounds on what one analysis keeps, whatever the trace's size.
const (
	maxRequests = 20000
	maxShifts   = 5000
	maxTasks    = 5000 // long tasks per thread
	maxInputs   = 5000
)

// longTaskMin is the duration from which a main-thread task is long
// (50 ms, as in the RAIL model, Lighthouse and DevTools), in µs.
const longTaskMin = 50_000

type threadKey struct{ pid, tid int64 }

// analyzer holds what the pass has kept so far.
type analyzer struct {
	n int // events read

	names     map[threadKey]string // thread names from metadata
	mainFrame string               // the traced tab's main frame id
	pinned    bool                 // mainFrame was given, not read from the trace
	startURL  string               // its URL when tracing started
	startPid  int64                // its renderer process when tracing started
	first     float64              // the earliest timestamp seen (µs); 0 until one
	last      float64              // the latest end seen (µs)

	navs     []*navigation // the main frame's navigations, in order
	requests map[string]*request
	images   map[int64]string // LCP image candidates' URLs, by DOM node id
	shifts   []shift
	inputs   map[int64]*interaction // by interaction id
	threads  map[threadKey]*thread
}

func newAnalyzer() *analyzer {
	return &analyzer{
		names: map[threadKey]string{}, requests: map[string]*request{}, images: map[int64]string{},
		inputs: map[int64]*interaction{}, threads: map[threadKey]*thread{},
	}
}

// navigation is one navigation of the main frame, with the paint metrics
// recorded for it.
type navigation struct {
	id      string
	url     string
	ts      float64
	thread  threadKey
	fcp     float64 // 0 until seen
	lcp     *lcpCandidate
	candIdx int64
}

type lcpCandidate struct {
	ts       float64
	kind     string // image or text
	nodeName string
	nodeID   int64
	size     int64
}

// request is one network request, from ResourceSendRequest to
// ResourceFinish.
type request struct {
	id             string
	url            string
	frame          string
	resourceType   string
	priority       string
	renderBlocking string
	start          float64 // µs
	headers        float64 // µs, the first byte of the response; 0 until known
	end            float64 // µs; 0 until finished
	status         int64
	mimeType       string
	bytes          int64
	failed         bool
}

type shift struct {
	ts       float64
	score    float64 // weighted_score_delta
	hadInput bool
	nodes    []string
}

type interaction struct {
	id       int64
	kind     string
	ts       float64
	duration float64 // ms
}

// Per-event argument shapes.
type (
	frameArgs struct {
		Frame string `json:"frame"`
		Data  struct {
			Frame                string `json:"frame"`
			NavigationID         string `json:"navigationId"`
			DocumentLoaderURL    string `json:"documentLoaderURL"`
			IsOutermostMainFrame *bool  `json:"isOutermostMainFrame"`
			IsMainFrame          *bool  `json:"isMainFrame"`
			// largestContentfulPaint::Candidate
			CandidateIndex int64  `json:"candidateIndex"`
			NodeID         int64  `json:"nodeId"`
			DOMNodeID      int64  `json:"DOMNodeId"`
			NodeName       string `json:"nodeName"`
			Size           int64  `json:"size"`
			Type           string `json:"type"`
			ImageURL       string `json:"imageUrl"`
			URL            string `json:"url"`
		} `json:"data"`
	}
	startedArgs struct {
		Data struct {
			Frames []struct {
				Frame                string `json:"frame"`
				URL                  string `json:"url"`
				ProcessID            int64  `json:"processId"`
				IsOutermostMainFrame bool   `json:"isOutermostMainFrame"`
				IsInPrimaryMainFrame bool   `json:"isInPrimaryMainFrame"`
				Parent               string `json:"parent"`
			} `json:"frames"`
		} `json:"data"`
	}
	committedArgs struct {
		Data struct {
			Frame     string `json:"frame"`
			ProcessID int64  `json:"processId"`
			URL       string `json:"url"`
		} `json:"data"`
	}
	requestArgs struct {
		Data struct {
			RequestID      string  `json:"requestId"`
			URL            string  `json:"url"`
			Frame          string  `json:"frame"`
			ResourceType   string  `json:"resourceType"`
			Priority       string  `json:"priority"`
			RenderBlocking string  `json:"renderBlocking"`
			StatusCode     int64   `json:"statusCode"`
			MimeType       string  `json:"mimeType"`
			FinishTime     float64 `json:"finishTime"` // s
			EncodedLength  int64   `json:"encodedDataLength"`
			DidFail        bool    `json:"didFail"`
			Timing         *struct {
				RequestTime         float64 `json:"requestTime"` // s
				ReceiveHeadersStart float64 `json:"receiveHeadersStart"`
				ReceiveHeadersEnd   float64 `json:"receiveHeadersEnd"` // ms after requestTime
			} `json:"timing"`
		} `json:"data"`
	}
	shiftArgs struct {
		Frame string `json:"frame"`
		Data  struct {
			Score          float64 `json:"weighted_score_delta"`
			HadRecentInput bool    `json:"had_recent_input"`
			IsMainFrame    *bool   `json:"is_main_frame"`
			Impacted       []struct {
				NodeID    int64  `json:"node_id"`
				DebugName string `json:"debug_name"`
			} `json:"impacted_nodes"`
		} `json:"data"`
	}
	timingArgs struct {
		Data struct {
			InteractionID int64   `json:"interactionId"`
			Duration      float64 `json:"duration"` // ms
			Type          string  `json:"type"`
			Frame         string  `json:"frame"`
		} `json:"data"`
	}
	scriptArgs struct {
		Data struct {
			URL          string `json:"url"`
			FunctionName string `json:"functionName"`
			LineNumber   int64  `json:"lineNumber"`
			Type         string `json:"type"` // EventDispatch's event type
		} `json:"data"`
	}
	nameArgs struct {
		Name string `json:"name"`
	}
)

// decodeArgs decodes ev's args into v; false when there are none or they
// do not fit.
func decodeArgs(ev *event, v any) bool {
	return len(ev.Args) > 0 && json.Unmarshal(ev.Args, v) == nil
}

// add takes one event into account.
func (a *analyzer) add(ev *event) {
	if ev.Ts > 0 {
		if a.first == 0 || ev.Ts < a.first {
			a.first = ev.Ts
		}
		if end := ev.Ts + ev.Dur; end > a.last {
			a.last = end
		}
	}
	switch ev.Ph {
	case "M":
		if ev.Name == "thread_name" {
			var n nameArgs
			if decodeArgs(ev, &n) {
				a.names[threadKey{ev.Pid, ev.Tid}] = n.Name
			}
		}
		return
	case "X":
		a.thread(threadKey{ev.Pid, ev.Tid}).push(ev)
		return
	}
	switch ev.Name {
	case "TracingStartedInBrowser":
		a.tracingStarted(ev)
	case "FrameCommittedInBrowser":
		var c committedArgs
		if decodeArgs(ev, &c) && c.Data.Frame != "" && c.Data.Frame == a.mainFrame && c.Data.ProcessID != 0 {
			a.startPid = c.Data.ProcessID
		}
	case "navigationStart":
		a.navigationStart(ev)
	case "firstContentfulPaint":
		var f frameArgs
		if decodeArgs(ev, &f) && f.Frame == a.mainFrame {
			if n := a.nav(f.Data.NavigationID); n != nil && n.fcp == 0 {
				n.fcp = ev.Ts
			}
		}
	case "largestContentfulPaint::Candidate":
		a.lcpCandidate(ev)
	case "LargestImagePaint::Candidate":
		var f frameArgs
		if decodeArgs(ev, &f) && f.Frame == a.mainFrame && len(a.images) < maxRequests {
			u := f.Data.ImageURL
			if u == "" {
				u = f.Data.URL
			}
			if u != "" {
				a.images[f.Data.DOMNodeID] = u
			}
		}
	case "LayoutShift":
		a.layoutShift(ev)
	case "ResourceSendRequest", "ResourceReceiveResponse", "ResourceFinish":
		a.request(ev)
	case "EventTiming":
		a.eventTiming(ev)
	}
}

func (a *analyzer) tracingStarted(ev *event) {
	var s startedArgs
	if !decodeArgs(ev, &s) || (a.mainFrame != "" && !a.pinned) {
		return
	}
	if a.pinned {
		for _, f := range s.Data.Frames {
			if f.Frame == a.mainFrame {
				a.startURL, a.startPid = f.URL, f.ProcessID
			}
		}
		return
	}
	for _, f := range s.Data.Frames {
		if f.Parent == "" && (f.IsOutermostMainFrame || f.IsInPrimaryMainFrame) {
			a.mainFrame, a.startURL, a.startPid = f.Frame, f.URL, f.ProcessID
			return
		}
	}
	if len(s.Data.Frames) > 0 {
		f := s.Data.Frames[0]
		a.mainFrame, a.startURL, a.startPid = f.Frame, f.URL, f.ProcessID
	}
}

func (a *analyzer) navigationStart(ev *event) {
	var f frameArgs
	if !decodeArgs(ev, &f) {
		return
	}
	if a.mainFrame == "" && f.Data.IsOutermostMainFrame != nil && *f.Data.IsOutermostMainFrame {
		a.mainFrame = f.Frame // a trace without TracingStartedInBrowser
	}
	u := f.Data.DocumentLoaderURL
	if f.Frame != a.mainFrame || u == "" || strings.HasPrefix(u, "about:") {
		return
	}
	a.navs = append(a.navs, &navigation{id: f.Data.NavigationID, url: u, ts: ev.Ts, thread: threadKey{ev.Pid, ev.Tid}})
}

// nav returns the navigation with id, or the latest one when id is "".
func (a *analyzer) nav(id string) *navigation {
	for i := len(a.navs) - 1; i >= 0; i-- {
		if id == "" || a.navs[i].id == id {
			return a.navs[i]
		}
	}
	return nil
}

func (a *analyzer) lcpCandidate(ev *event) {
	var f frameArgs
	if !decodeArgs(ev, &f) || f.Frame != a.mainFrame {
		return
	}
	if f.Data.IsOutermostMainFrame != nil && !*f.Data.IsOutermostMainFrame {
		return
	}
	n := a.nav(f.Data.NavigationID)
	if n == nil || (n.lcp != nil && f.Data.CandidateIndex < n.candIdx) {
		return
	}
	n.candIdx = f.Data.CandidateIndex
	n.lcp = &lcpCandidate{ts: ev.Ts, kind: f.Data.Type, nodeName: f.Data.NodeName, nodeID: f.Data.NodeID, size: f.Data.Size}
}

func (a *analyzer) layoutShift(ev *event) {
	var s shiftArgs
	if !decodeArgs(ev, &s) || s.Frame != a.mainFrame || len(a.shifts) >= maxShifts {
		return
	}
	if s.Data.IsMainFrame != nil && !*s.Data.IsMainFrame {
		return
	}
	sh := shift{ts: ev.Ts, score: s.Data.Score, hadInput: s.Data.HadRecentInput}
	for _, n := range s.Data.Impacted {
		if n.DebugName != "" {
			sh.nodes = append(sh.nodes, n.DebugName)
		}
	}
	a.shifts = append(a.shifts, sh)
}

func (a *analyzer) request(ev *event) {
	var r requestArgs
	if !decodeArgs(ev, &r) || r.Data.RequestID == "" {
		return
	}
	d := r.Data
	req := a.requests[d.RequestID]
	switch ev.Name {
	case "ResourceSendRequest":
		if req != nil || len(a.requests) >= maxRequests {
			return // a redirect sends again: keep the first start
		}
		a.requests[d.RequestID] = &request{id: d.RequestID, url: d.URL, frame: d.Frame, resourceType: d.ResourceType,
			priority: d.Priority, renderBlocking: d.RenderBlocking, start: ev.Ts}
	case "ResourceReceiveResponse":
		if req == nil {
			return
		}
		req.status, req.mimeType = d.StatusCode, d.MimeType
		if t := d.Timing; t != nil && t.RequestTime > 0 {
			h := t.ReceiveHeadersStart
			if h <= 0 {
				h = t.ReceiveHeadersEnd
			}
			req.headers = t.RequestTime*1e6 + h*1e3
		} else {
			req.headers = ev.Ts
		}
	case "ResourceFinish":
		if req == nil {
			return
		}
		req.end = ev.Ts
		if d.FinishTime > 0 {
			req.end = d.FinishTime * 1e6
		}
		req.bytes, req.failed = d.EncodedLength, d.DidFail
	}
}

func (a *analyzer) eventTiming(ev *event) {
	if ev.Ph != "b" && ev.Ph != "X" {
		return
	}
	var t timingArgs
	if !decodeArgs(ev, &t) || t.Data.InteractionID <= 0 {
		return
	}
	if t.Data.Frame != "" && a.mainFrame != "" && t.Data.Frame != a.mainFrame {
		return
	}
	in := a.inputs[t.Data.InteractionID]
	if in == nil {
		if len(a.inputs) >= maxInputs {
			return
		}
		in = &interaction{id: t.Data.InteractionID, ts: ev.Ts}
		a.inputs[t.Data.InteractionID] = in
	}
	if t.Data.Duration > in.duration {
		in.duration, in.kind = t.Data.Duration, t.Data.Type
	}
}

func (a *analyzer) thread(k threadKey) *thread {
	t := a.threads[k]
	if t == nil {
		t = &thread{self: map[string]float64{}, scriptByOrigin: map[string]float64{}}
		a.threads[k] = t
	}
	return t
}
