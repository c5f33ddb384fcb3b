package trace

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// The files under testdata/ are traces cdpkit recorded of the fixture
// pages of internal/tools' TestPerformanceTrace, trimmed by
// testdata/trim.go to the page's main thread.
func analyzeFile(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Analyze(f)
	if err != nil {
		t.Fatalf("Analyze(%s): %v", name, err)
	}
	return r
}

func TestAnalyzeRecorded(t *testing.T) {
	t.Parallel()
	t.Run("busy", func(t *testing.T) {
		t.Parallel()
		r := analyzeFile(t, "busy.json")
		if len(r.Tasks) != 1 || r.Tasks[0].MS < 300 || r.Tasks[0].Function != "spin" || !strings.HasSuffix(r.Tasks[0].URL, "/busy") || r.Tasks[0].Line != 4 {
			t.Errorf("long tasks = %+v, want one ≥ 300 ms in spin at /busy:4", r.Tasks)
		}
		if r.TBT < 250 || r.TBTFrom != "fcp" {
			t.Errorf("TBT = %.1f from %s, want ≥ 250 from fcp", r.TBT, r.TBTFrom)
		}
		if r.FCP == nil || r.LCP == nil || r.LCP.Type != "text" {
			t.Errorf("FCP %v, LCP %+v: want both, LCP text", r.FCP, r.LCP)
		}
		if r.Main[0].Name != catScripting || r.Main[0].MS < 300 {
			t.Errorf("main thread = %+v, want scripting first, ≥ 300 ms", r.Main)
		}
		if d := r.Document; d == nil || d.Status != 200 || d.TTFB <= 0 || d.MS < d.TTFB {
			t.Errorf("document = %+v", d)
		}
		if len(r.Parties) != 1 || !r.Parties[0].First {
			t.Errorf("third parties = %+v, want the page's own origin only", r.Parties)
		}
	})
	t.Run("hero", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"hero.json", "hero-gz.json.gz"} {
			r := analyzeFile(t, name)
			l := r.LCP
			if l == nil || l.Type != "image" || l.NodeName != "IMG id='hero'" || !strings.HasSuffix(l.URL, "/hero.png") {
				t.Fatalf("%s: LCP = %+v, want IMG id='hero' /hero.png", name, l)
			}
			p := l.Phases
			if p.LoadDelay == nil || p.LoadDuration == nil || *p.LoadDuration < 600 {
				t.Fatalf("%s: phases = %+v, want a load of ≥ 600 ms", name, p)
			}
			if sum := p.TTFB + *p.LoadDelay + *p.LoadDuration + p.RenderDelay; sum < l.MS-0.5 || sum > l.MS+0.5 {
				t.Errorf("%s: phases add up to %.1f, LCP %.1f", name, sum, l.MS)
			}
		}
	})
	t.Run("shift", func(t *testing.T) {
		t.Parallel()
		r := analyzeFile(t, "shift.json")
		if r.CLS.Value <= 0.1 || r.CLS.Shifts < 1 || len(r.CLS.Nodes) == 0 || r.CLS.Nodes[0].Name != "DIV id='content'" {
			t.Errorf("CLS = %+v, want > 0.1 naming DIV id='content'", r.CLS)
		}
	})
	t.Run("plain", func(t *testing.T) {
		t.Parallel()
		r := analyzeFile(t, "plain.json")
		if r.CLS.Value != 0 || r.TBT != 0 || len(r.Tasks) != 0 || r.INP != nil || len(r.Blocking) != 0 {
			t.Errorf("plain page: CLS %v, TBT %v, tasks %v, INP %v, blocking %v: want nothing", r.CLS.Value, r.TBT, r.Tasks, r.INP, r.Blocking)
		}
	})
}

// synthetic is a trace written by hand: a page with a render-blocking
// stylesheet, two interactions and a third-party script.
const synthetic = `[
{"name":"thread_name","ph":"M","pid":2,"tid":7,"args":{"name":"CrRendererMain"}},
{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":1000,"args":{"data":{"frames":[{"frame":"F","url":"about:blank","processId":2,"isOutermostMainFrame":true}]}}},
{"name":"navigationStart","ph":"R","pid":2,"tid":7,"ts":10000,"args":{"frame":"F","data":{"documentLoaderURL":"https://a.test/","isOutermostMainFrame":true,"navigationId":"N"}}},
{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":7,"ts":11000,"args":{"data":{"requestId":"N","url":"https://a.test/","frame":"F","resourceType":"Document"}}},
{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":7,"ts":30000,"args":{"data":{"requestId":"N","statusCode":200,"timing":{"requestTime":0.011,"receiveHeadersStart":10}}}},
{"name":"ResourceFinish","ph":"I","pid":2,"tid":7,"ts":31000,"args":{"data":{"requestId":"N","finishTime":0.031,"encodedDataLength":900}}},
{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":7,"ts":32000,"args":{"data":{"requestId":"2","url":"https://a.test/s.css","frame":"F","resourceType":"Stylesheet","renderBlocking":"blocking"}}},
{"name":"ResourceFinish","ph":"I","pid":2,"tid":7,"ts":232000,"args":{"data":{"requestId":"2","encodedDataLength":5000}}},
{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":7,"ts":33000,"args":{"data":{"requestId":"3","url":"https://a.test/late.js","frame":"F","resourceType":"Script","renderBlocking":"non_blocking"}}},
{"name":"firstContentfulPaint","ph":"R","pid":2,"tid":7,"ts":250000,"args":{"frame":"F","data":{"navigationId":"N"}}},
{"name":"RunTask","ph":"X","pid":2,"tid":7,"ts":260000,"dur":120000,"args":{}},
{"name":"FunctionCall","ph":"X","pid":2,"tid":7,"ts":260100,"dur":119000,"args":{"data":{"url":"https://cdn.other.test/ads.js","functionName":"track","lineNumber":9}}},
{"name":"Layout","ph":"X","pid":2,"tid":7,"ts":300000,"dur":10000,"args":{}},
{"name":"EventTiming","ph":"b","pid":2,"tid":7,"ts":400000,"id":"0x1","args":{"data":{"interactionId":5,"duration":80,"type":"pointerup","frame":"F"}}},
{"name":"EventTiming","ph":"b","pid":2,"tid":7,"ts":500000,"id":"0x2","args":{"data":{"interactionId":6,"duration":240,"type":"keydown","frame":"F"}}},
{"name":"EventTiming","ph":"b","pid":2,"tid":7,"ts":500000,"id":"0x3","args":{"data":{"interactionId":0,"duration":900,"type":"mousemove","frame":"F"}}}
]`

func TestAnalyzeSynthetic(t *testing.T) {
	t.Parallel()
	r, err := Analyze(strings.NewReader(synthetic))
	if err != nil {
		t.Fatal(err)
	}
	if r.URL != "https://a.test/" || !r.Navigation || r.Document.TTFB != 11 || r.Document.MS != 21 {
		t.Errorf("page = %q nav %v document %+v, want a.test, TTFB 11 ms, 21 ms", r.URL, r.Navigation, r.Document)
	}
	if len(r.Blocking) != 1 || !strings.HasSuffix(r.Blocking[0].URL, "/s.css") || r.Blocking[0].MS != 200 {
		t.Errorf("render-blocking = %+v, want s.css 200 ms", r.Blocking)
	}
	if r.INP == nil || r.INP.MS != 240 || r.INP.Type != "keydown" || r.INP.Interactions != 2 {
		t.Errorf("INP = %+v, want 240 ms keydown of 2", r.INP)
	}
	if len(r.Tasks) != 1 || r.Tasks[0].Function != "track" || r.Tasks[0].Line != 10 || r.TBT != 70 {
		t.Errorf("tasks %+v TBT %v, want track at line 10, TBT 70", r.Tasks, r.TBT)
	}
	want := map[string]float64{catScripting: 109, catRendering: 10, catOther: 1}
	for _, c := range r.Main {
		if want[c.Name] != c.MS {
			t.Errorf("main thread %s = %v ms, want %v", c.Name, c.MS, want[c.Name])
		}
	}
	if len(r.Parties) != 1 || r.Parties[0].Origin != "https://cdn.other.test" || r.Parties[0].First {
		t.Errorf("third parties = %+v, want cdn.other.test", r.Parties)
	}
	for _, name := range Insights {
		text, err := r.Insight(name)
		if err != nil || text == "" {
			t.Errorf("Insight(%s) = %q, %v", name, text, err)
		}
	}
	if _, err := r.Insight("nonsense"); !errors.Is(err, ErrUnknownInsight) {
		t.Errorf("Insight(nonsense) = %v, want ErrUnknownInsight", err)
	}
}

func TestSummaryLimit(t *testing.T) {
	t.Parallel()
	r := analyzeFile(t, "hero.json")
	full := r.Summary(0)
	for _, want := range []string{"LCP ", "image <img id='hero'> /hero.png", "load delay", "FCP ", "CLS 0.000", "TBT 0 ms", "main thread:"} {
		if !strings.Contains(full, want) {
			t.Errorf("summary lacks %q:\n%s", want, full)
		}
	}
	for _, limit := range []int{40, 100, 1500} {
		if s := r.Summary(limit); len(s) > limit {
			t.Errorf("Summary(%d) is %d bytes", limit, len(s))
		}
	}
}

func TestAnalyzeRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "42", `{"metadata":{}}`, `{"traceEvents":{}}`, `[{"name":1}]`, "\x1f\x8bjunk"} {
		if _, err := Analyze(strings.NewReader(in)); !errors.Is(err, ErrFormat) {
			t.Errorf("Analyze(%q) = %v, want ErrFormat", in, err)
		}
	}
}

func TestInsightName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"LCPBreakdown": "lcp", "CLSCulprits": "cls", "long-tasks": "long-tasks",
		"RenderBlocking": "render-blocking", "ThirdParties": "third-parties", "DocumentLatency": "document-latency", "x": ""} {
		if got := InsightName(in); got != want {
			t.Errorf("InsightName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAnalyzeFrameAmongTabs: a browser's trace names every tab's main
// frame; the one asked for is analyzed even when another comes first
// (seen when tabs of other sessions are open while one is traced).
func TestAnalyzeFrameAmongTabs(t *testing.T) {
	t.Parallel()
	const traced = "9979113261324EF26B15A1A633F103AA" // testdata/shift.json's tab
	raw, err := os.ReadFile("testdata/shift.json")
	if err != nil {
		t.Fatal(err)
	}
	other := `{"frame": "0THER0TAB", "isInPrimaryMainFrame": true, "isOutermostMainFrame": true, "name": "", "processId": 1, "url": "http://127.0.0.1:1/other"}, `
	two := strings.Replace(string(raw), `"frames":[`, `"frames":[`+other, 1)
	if two == string(raw) {
		t.Fatal("testdata/shift.json has no frames list to add a tab to")
	}
	if r, err := Analyze(strings.NewReader(two)); err != nil || r.CLS.Value > 0 {
		t.Errorf("Analyze without a frame: %v, CLS %v; want the first tab's (none)", err, r.CLS.Value)
	}
	r, err := AnalyzeFrame(strings.NewReader(two), traced)
	if err != nil {
		t.Fatal(err)
	}
	if r.CLS.Value <= 0.1 || !strings.HasSuffix(r.URL, "/shift") {
		t.Errorf("AnalyzeFrame: CLS %.4f, url %q; want the shift page's (> 0.1)", r.CLS.Value, r.URL)
	}
}
