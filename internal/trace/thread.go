package trace

import (
	"net/url"
	"strings"
)

// Main-thread categories, after DevTools' summary: what a thread's time
// went to, each event counted by its self time (its duration less that
// of the events nested in it).
const (
	catScripting = "scripting"
	catRendering = "rendering" // style and layout
	catPainting  = "painting"
	catLoading   = "loading" // parsing HTML and CSS
	catGC        = "gc"
	catOther     = "other" // task overhead and what no category claims
)

// categories maps event names to categories. An event not named here
// counts toward the category of the event it is nested in, or "other".
var categories = map[string]string{
	"EvaluateScript": catScripting, "FunctionCall": catScripting, "TimerFire": catScripting,
	"EventDispatch": catScripting, "FireAnimationFrame": catScripting, "FireIdleCallback": catScripting,
	"v8.compile": catScripting, "v8.compileModule": catScripting, "v8.evaluateModule": catScripting,
	"V8.CompileCode": catScripting, "v8.produceCache": catScripting, "v8.produceModuleCache": catScripting,
	"RunMicrotasks": catScripting, "XHRReadyStateChange": catScripting, "XHRLoad": catScripting,
	"v8.run": catScripting, "v8.callFunction": catScripting, "V8.Execute": catScripting,
	"Layout": catRendering, "UpdateLayoutTree": catRendering, "RecalculateStyles": catRendering,
	"HitTest": catRendering, "PrePaint": catRendering, "UpdateLayerTree": catRendering,
	"Layerize": catRendering, "IntersectionObserverController::computeIntersections": catRendering,
	"Paint": catPainting, "PaintImage": catPainting, "Decode Image": catPainting, "ImageDecodeTask": catPainting,
	"Decode LazyPixelRef": catPainting, "Rasterize": catPainting, "RasterTask": catPainting,
	"CompositeLayers": catPainting, "Commit": catPainting, "UpdateLayer": catPainting, "PaintSetup": catPainting,
	"ParseHTML": catLoading, "ParseAuthorStyleSheet": catLoading,
	"MinorGC": catGC, "MajorGC": catGC, "V8.GCScavenger": catGC, "V8.GCCompactor": catGC,
	"V8.GCIncrementalMarking": catGC, "V8.GCFinalizeMC": catGC, "BlinkGC.AtomicPhase": catGC,
}

// scriptEvents are the events that run a script; their args may name it.
var scriptEvents = map[string]bool{
	"EvaluateScript": true, "FunctionCall": true, "TimerFire": true, "EventDispatch": true,
	"FireAnimationFrame": true, "FireIdleCallback": true, "v8.compile": true, "v8.evaluateModule": true,
	"RunMicrotasks": true,
}

// thread is one thread's share of the pass: its open events (the
// nesting stack), time by category and long tasks.
type thread struct {
	stack          []*frame
	self           map[string]float64 // µs by category
	scriptByOrigin map[string]float64 // scripting self time by script origin, µs
	tasks          []task             // long top-level tasks, in order
	busy           float64            // µs in top-level tasks
}

// frame is an open event on a thread's stack.
type frame struct {
	name  string
	cat   string
	ts    float64
	end   float64
	child float64 // µs covered by nested events
	// For a script event: what it names.
	url, fn string
	line    int64
	origin  string
	// For a top-level task: its heaviest script.
	best *frame
}

// task is a long top-level task.
type task struct {
	ts, dur float64 // µs
	script  *frame  // its heaviest script event, if any
}

// push takes a complete event. Events of a thread arrive in start order, so
// any open event that ends before ev starts is over.
func (t *thread) push(ev *event) {
	end := ev.Ts + ev.Dur
	for len(t.stack) > 0 && t.stack[len(t.stack)-1].end <= ev.Ts {
		t.pop()
	}
	// An event that outlasts its would-be parent is not nested in it.
	for len(t.stack) > 0 && t.stack[len(t.stack)-1].end < end {
		t.pop()
	}
	f := &frame{name: ev.Name, ts: ev.Ts, end: end}
	if c, ok := categories[ev.Name]; ok {
		f.cat = c
	} else if len(t.stack) > 0 {
		f.cat = t.stack[len(t.stack)-1].cat
	} else {
		f.cat = catOther
	}
	if len(t.stack) > 0 {
		t.stack[len(t.stack)-1].child += ev.Dur
	} else {
		t.busy += ev.Dur
	}
	if scriptEvents[ev.Name] {
		var s scriptArgs
		if decodeArgs(ev, &s) {
			f.url, f.fn, f.line = s.Data.URL, s.Data.FunctionName, s.Data.LineNumber
			if f.url == "" && s.Data.Type != "" {
				f.fn = s.Data.Type + " handler"
			}
			f.origin = origin(f.url)
		}
		if len(t.stack) > 0 {
			root := t.stack[0]
			if better(f, ev.Dur, root.best) {
				root.best = f
			}
		}
	}
	t.stack = append(t.stack, f)
}

// better reports whether script event f (of duration dur) names its task
// better than best: one that names a script beats one that does not, then
// the longer wins.
func better(f *frame, dur float64, best *frame) bool {
	if best == nil {
		return true
	}
	if (f.url != "") != (best.url != "") {
		return f.url != ""
	}
	return dur > best.end-best.ts
}

// pop closes the innermost open event.
func (t *thread) pop() {
	f := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	dur := f.end - f.ts
	self := max(dur-f.child, 0)
	t.self[f.cat] += self
	if f.cat == catScripting && f.origin != "" {
		t.scriptByOrigin[f.origin] += self
	}
	if len(t.stack) == 0 && dur >= longTaskMin && len(t.tasks) < maxTasks {
		t.tasks = append(t.tasks, task{ts: f.ts, dur: dur, script: f.best})
	}
}

// flush closes every open event, at the end of the trace.
func (t *thread) flush() {
	for len(t.stack) > 0 {
		t.pop()
	}
}

// origin returns the scheme and host of a script's URL, or "".
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !strings.HasPrefix(u.Scheme, "http") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
