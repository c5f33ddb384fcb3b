package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/trace"
)

// The pages the performance tests trace.
const (
	// busyPage blocks the main thread for 300 ms once the page has
	// painted, so the task falls after FCP, where TBT counts it.
	busyPage = `<!doctype html><title>Busy</title><h1>Busy page</h1><p>It computes after its first paint.</p>
<script>
function spin() { const end = performance.now() + 300; while (performance.now() < end) {} }
new PerformanceObserver(() => setTimeout(spin, 0)).observe({type: 'paint', buffered: true});
</script>`
	// heroPage's largest element is an image that arrives late.
	heroPage = `<!doctype html><title>Hero</title><p>Small text.</p><img id="hero" src="/hero.png" width="600" height="400" alt="hero">`
	// shiftPage pushes its content down after it loads, by growing a
	// spacer above it. The body's padding keeps margins from collapsing
	// through it, so only the content moves.
	shiftPage = `<!doctype html><title>Shift</title><style>body{margin:0;padding:8px}</style>
<div id="spacer"></div><div id="content"><h1>Article</h1><p style="height:500px;background:#eee">Body text that moves.</p></div>
<script>
addEventListener('load', () => setTimeout(() => { document.getElementById('spacer').style.height = '300px'; }, 300));
</script>`
	// inpPage's button handler blocks for 200 ms before the next paint.
	inpPage   = `<!doctype html><title>Input</title><button id="b" onclick="const end = performance.now() + 200; while (performance.now() < end) {} this.textContent = 'Clicked'">Click</button>`
	plainPage = `<!doctype html><title>Plain</title><h1>Plain page</h1><p>Nothing happens here.</p>`
)

// heroPNG is a noisy image: Chromium does not count low-entropy images
// (a flat color) as LCP candidates.
var heroPNG = sync.OnceValue(func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 600, 400))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.UintN(256))
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
})

// perfServer serves the performance pages; the hero image arrives after
// heroDelay.
func perfServer(t *testing.T) string {
	t.Helper()
	const heroDelay = 700 * time.Millisecond
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.Handle("/busy", page(busyPage))
	mux.Handle("/hero", page(heroPage))
	mux.Handle("/shift", page(shiftPage))
	mux.Handle("/plain", page(plainPage))
	mux.Handle("/inp", page(inpPage))
	mux.Handle("/nodes", page(nodesPage(5000)))
	mux.HandleFunc("/hero.png", func(w http.ResponseWriter, r *http.Request) {
		select { // the page's late hero, not a wait of the test's
		case <-time.After(heroDelay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(heroPNG())
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return browsertest.ServerHandler(t, mux).URL
}

// nodesPage is a page of about n DOM nodes.
func nodesPage(n int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><title>Nodes</title><ul>")
	for i := range n / 2 {
		fmt.Fprintf(&b, "<li><span>item %d</span></li>", i)
	}
	b.WriteString("</ul>")
	return b.String()
}

// recordTraces, when set, is a directory where tracePage copies the
// traces it records, named after the page: how internal/trace/testdata
// was recorded (then trimmed by internal/trace/testdata/trim.go).
var recordTraces = flag.String("record-traces", "", "copy the recorded traces to this directory")

// tracePage opens url in a new tab of h and traces its reload with
// performance_trace and extra arguments; it returns the result's data,
// its summary and the analysis of the saved file.
func tracePage(t *testing.T, h *harness, url, extra string) (map[string]any, string, *trace.Report) {
	t.Helper()
	h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q}`, url))
	res, err := h.result(t, "performance_trace", `{`+extra+`"timeout_ms":90000}`)
	if err != nil {
		t.Fatalf("performance_trace: %v", err)
	}
	raw, _ := json.Marshal(res.Data)
	t.Logf("performance_trace → %s\n%s", raw, res.Text)
	if n := len(raw) + 1 + len(res.Text); n > summaryLimit {
		t.Errorf("the result is %d characters, over %d", n, summaryLimit)
	}
	var data map[string]any
	json.Unmarshal(raw, &data)
	path, _ := data["path"].(string)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening the trace file: %v", err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if got := int64(data["bytes"].(float64)); got != st.Size() && !strings.HasSuffix(path, ".gz") {
		t.Errorf("bytes = %d, the file has %d", got, st.Size())
	}
	rep, err := analyzeFile(t.Context(), h.env, path)
	if err != nil {
		t.Fatalf("the saved trace does not analyze: %v", err)
	}
	if *recordTraces != "" {
		f.Seek(0, io.SeekStart)
		var b bytes.Buffer
		io.Copy(&b, f)
		name := filepath.Join(*recordTraces, filepath.Base(url)+".json")
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data, res.Text, rep
}

// TestPerformanceTrace traces the fixture pages. It runs beside the
// package's other tests (each harness is a browser context of its own,
// in a window of its own, so its tab paints; the analysis keeps to the
// traced tab's frame), but its subtests run one after another: Chromium
// records one trace at a time per browser, and no other test here traces
// in the parallel phase (TestPerformanceTraceRSS runs before it, alone).
func TestPerformanceTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (records traces): skipped by -short")
	}
	t.Parallel()
	base := perfServer(t)

	t.Run("busy loop is a long task and blocks", func(t *testing.T) {
		h := newHarness(t, nil)
		data, text, rep := tracePage(t, h, base+"/busy", "")
		if l := longest(rep); l < 300 {
			t.Errorf("longest task %.1f ms, want ≥ 300", l)
		}
		if rep.TBT < 250 || data["tbtMs"].(float64) < 250 {
			t.Errorf("TBT %.1f ms (result %v), want ≥ 250", rep.TBT, data["tbtMs"])
		}
		if !strings.Contains(text, "long tasks") || !strings.Contains(text, "/busy:") {
			t.Errorf("summary does not name the long task's script:\n%s", text)
		}
		if data["throttling"] != "none" {
			t.Errorf("throttling = %v, want none", data["throttling"])
		}
	})

	t.Run("late hero image is the LCP with phases", func(t *testing.T) {
		h := newHarness(t, nil)
		_, text, rep := tracePage(t, h, base+"/hero", "")
		l := rep.LCP
		if l == nil || l.Type != "image" || !strings.HasPrefix(l.NodeName, "IMG") || !strings.HasSuffix(l.URL, "/hero.png") {
			t.Fatalf("LCP = %+v, want the image /hero.png", l)
		}
		p := l.Phases
		if p.LoadDuration == nil || *p.LoadDuration < 600 {
			t.Errorf("load duration %v, want ≥ 600 ms (the image's delay)", p.LoadDuration)
		}
		sum := p.TTFB + *p.LoadDelay + *p.LoadDuration + p.RenderDelay
		if d := sum - l.MS; d > 1 || d < -1 {
			t.Errorf("phases add up to %.1f ms, LCP is %.1f", sum, l.MS)
		}
		if !strings.Contains(text, "image <img id='hero'> /hero.png") || !strings.Contains(text, "load delay") {
			t.Errorf("summary does not name the image and its phases:\n%s", text)
		}
		out := h.mustCall(t, "performance_analyze_insight", `{"name":"LCPBreakdown"}`)
		if out["insight"] != "lcp" {
			t.Errorf("insight = %v", out)
		}
	})

	t.Run("shifting content has a CLS and the node", func(t *testing.T) {
		h := newHarness(t, nil)
		_, text, rep := tracePage(t, h, base+"/shift", "")
		if rep.CLS.Value <= 0.1 {
			t.Errorf("CLS %.4f, want > 0.1", rep.CLS.Value)
		}
		if len(rep.CLS.Nodes) == 0 || !strings.Contains(text, "shifted: ") || !strings.Contains(text, "id='content'") {
			t.Errorf("the shifted node is not named: %+v\n%s", rep.CLS.Nodes, text)
		}
	})

	t.Run("plain page measures about nothing", func(t *testing.T) {
		h := newHarness(t, nil)
		_, _, rep := tracePage(t, h, base+"/plain", "")
		// No TBT bound: on a loaded machine the renderer's own work (no
		// script of the page's) can pass 50 ms and count; the page's
		// scripts are checked below.
		if rep.CLS.Value > 0.01 || rep.FCP == nil || rep.LCP == nil {
			t.Errorf("plain page: CLS %.4f, FCP %v, LCP %v; want ~0 and paints", rep.CLS.Value, rep.FCP, rep.LCP)
		}
		for _, lt := range rep.Tasks {
			if lt.AtMS > 0 && lt.URL != "" {
				t.Errorf("a long task of the page's script: %+v", lt)
			}
		}
	})

	t.Run("start and stop, gzip, one at a time", func(t *testing.T) {
		h := newHarness(t, nil)
		h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q}`, base+"/shift"))
		_, err := h.call(t, "performance_stop_trace", `{}`)
		wantCode(t, err, NoTrace, "no trace")
		_, err = h.call(t, "performance_start_trace", `{"filePath":"x.txt"}`)
		wantCode(t, err, InvalidArgs, "x.txt")
		start := h.mustCall(t, "performance_start_trace", `{"reload":true,"filePath":"t/shift.json.gz"}`)
		if start["tracing"] != true || start["throttling"] != "none" {
			t.Errorf("start = %v", start)
		}
		other := newHarness(t, nil)
		other.mustCall(t, "new_page", `{"url":"about:blank"}`)
		_, err = other.call(t, "performance_start_trace", `{}`)
		wantCode(t, err, TraceActive, "already recording")
		// The shift, and a frame painted after it, before the stop.
		h.mustCall(t, "evaluate_script", `{"function":"() => new Promise(done => { const check = () => document.getElementById('spacer').offsetHeight === 300 ? requestAnimationFrame(() => requestAnimationFrame(() => done(true))) : setTimeout(check, 20); check(); })"}`)
		res, err := h.result(t, "performance_stop_trace", `{"timeout_ms":60000}`)
		if err != nil {
			t.Fatal(err)
		}
		data := res.Data.(traceData)
		if !strings.HasSuffix(data.Path, "t/shift.json.gz") || data.Bytes == 0 || data.CLS <= 0.1 {
			t.Errorf("stop = %+v, want t/shift.json.gz with CLS > 0.1", data)
		}
		st, err := os.Stat(data.Path)
		if err != nil || st.Size() >= data.Bytes {
			t.Errorf("the .gz file is %v bytes (%v), the trace %d: want it compressed", st.Size(), err, data.Bytes)
		}
		out, err := h.result(t, "performance_analyze_insight", `{"name":"cls","trace":"t/shift.json.gz"}`)
		if err != nil || !strings.Contains(out.Text, "DIV id='content'") {
			t.Errorf("cls insight = %v, %v", out, err)
		}
		_, err = h.call(t, "performance_analyze_insight", `{"name":"speed"}`)
		wantCode(t, err, InvalidArgs, "speed")
		// The other tab may trace now.
		auto := other.mustCall(t, "performance_start_trace", `{"autoStop":500,"timeout_ms":60000}`)
		if auto["path"] == "" || auto["tracing"] == true {
			t.Errorf("autoStop = %v, want a saved trace", auto)
		}
	})

	t.Run("clicks while tracing give INP", func(t *testing.T) {
		h := newHarness(t, nil)
		h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q}`, base+"/inp"))
		h.mustCall(t, "performance_start_trace", `{}`)
		h.mustCall(t, "click", `{"selector":"#b"}`)
		res, err := h.result(t, "performance_stop_trace", `{"timeout_ms":60000}`)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v\n%s", res.Data, res.Text)
		rep, err := analyzeFile(t.Context(), h.env, res.Data.(traceData).Path)
		if err != nil {
			t.Fatal(err)
		}
		if rep.INP == nil || rep.INP.MS < 200 || rep.INP.Interactions < 1 {
			t.Errorf("INP = %+v, want ≥ 200 ms", rep.INP)
		}
		if !strings.Contains(res.Text, "INP ") || !strings.Contains(res.Text, "no page load") {
			t.Errorf("summary lacks INP or the no-load note:\n%s", res.Text)
		}
	})

	t.Run("a throttled trace says so", func(t *testing.T) {
		h := newHarness(t, nil)
		h.mustCall(t, "new_page", fmt.Sprintf(`{"url":%q}`, base+"/plain"))
		h.mustCall(t, "emulate", `{"cpuThrottlingRate":4}`)
		// How much longer tasks take is Chromium's to decide, and on a busy
		// machine a plain run can be as slow as a throttled one: the test
		// holds the tool to what it owns, tracing the throttled page and
		// saying it was throttled.
		res, err := h.result(t, "performance_trace", `{"timeout_ms":90000}`)
		if err != nil {
			t.Fatal(err)
		}
		data := res.Data.(traceData)
		t.Logf("throttled: %+v\n%s", data, res.Text)
		if !strings.Contains(data.Throttling, "CPU 4x") {
			t.Errorf("throttling = %q, want CPU 4x", data.Throttling)
		}
		if _, err := analyzeFile(t.Context(), h.env, data.Path); err != nil {
			t.Fatal(err)
		}
	})
}

func longest(r *trace.Report) float64 {
	var m float64
	for _, t := range r.Tasks {
		m = max(m, t.MS)
	}
	return m
}

// TestPerfHeartbeat checks that a long stage reports itself again while
// it lasts, on synctest's clock.
func TestPerfHeartbeat(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var got []string
		ctx := WithProgress(t.Context(), func(msg string) { got = append(got, msg) })
		if err := recordTrace(ctx, 2*heartbeatEvery+heartbeatEvery/2); err != nil {
			t.Fatal(err)
		}
		every := int(heartbeatEvery.Seconds())
		want := []string{"recording", fmt.Sprintf("recording (%ds)", every), fmt.Sprintf("recording (%ds)", 2*every)}
		if !slices.Equal(got, want) {
			t.Errorf("reports %q, want %q", got, want)
		}
	})
}
