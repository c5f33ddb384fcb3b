package tools

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/trace"
)

// Bounds of the performance tools.
const (
	// summaryLimit bounds a trace result: its data and summary together.
	summaryLimit = 1500
	// traceLimit is how long a trace started without autoStop may run
	// before it stops (and is saved) by itself.
	traceLimit = 5 * time.Minute
	// traceSettle is how long performance_trace keeps recording after the
	// reload's load event, for the paints and shifts that follow it.
	traceSettle = 1500 * time.Millisecond
	// traceIdle is how long performance_trace records without a reload.
	traceIdle = 5 * time.Second
	// traceReserve is the part of a call's time kept for stopping, saving
	// and analyzing a trace.
	traceReserve = 8 * time.Second
)

type startTraceArgs struct {
	Reload   bool   `json:"reload,omitempty" jsonschema:"reload the page once recording starts, to measure its load"`
	AutoStop int    `json:"autoStop,omitempty" jsonschema:"ms to record, then stop and return the analysis in this call; without it the trace runs until performance_stop_trace (or 5 min)"`
	FilePath string `json:"filePath,omitempty" jsonschema:"trace file in the artifact dir, .json or .json.gz"`
	Target   string `json:"target,omitempty"`
}

type stopTraceArgs struct {
	Target string `json:"target,omitempty"`
}

type traceArgs struct {
	Reload     *bool  `json:"reload,omitempty" jsonschema:"reload the page to measure its load (default true)"`
	DurationMS int    `json:"durationMs,omitempty" jsonschema:"ms to keep recording after the load (default 1500), or in all without reload (default 5000)"`
	FilePath   string `json:"filePath,omitempty" jsonschema:"trace file in the artifact dir, .json or .json.gz"`
	Target     string `json:"target,omitempty"`
}

type insightArgs struct {
	Name  string `json:"name" jsonschema:"lcp, cls, long-tasks, inp, main-thread, render-blocking, third-parties or document-latency"`
	Trace string `json:"trace,omitempty" jsonschema:"trace file in the artifact dir (default: the last trace)"`
}

func perfTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "performance_start_trace",
			Description: "Start a performance trace of the tab, as DevTools' Performance panel records (brings the tab to the front: " +
				"a background tab does not paint). reload measures the page load; autoStop returns the analysis in this call. " +
				"One trace at a time per browser.",
		}, startTrace),
		defineOn(Tool{
			Name: "performance_stop_trace",
			Description: "Stop the tab's trace, save it (opens in DevTools and Perfetto) and return a summary: LCP with element " +
				"and phases, FCP, CLS with shifted nodes, TBT, long tasks with scripts, INP, main-thread time, render-blocking requests.",
			Dialog: DialogPasses,
		}, stopTrace),
		defineOn(Tool{
			Name: "performance_trace",
			Description: "Trace the page in one call: start, reload (or record durationMs), stop, save and summarize as " +
				"performance_stop_trace. Reports the CPU and network throttling it ran under (see emulate).",
		}, perfTrace),
		define(Tool{
			Name:        "performance_analyze_insight",
			Description: "One insight of the last trace, or of a trace file, in detail: lcp, cls, long-tasks, inp, main-thread, render-blocking, third-parties, document-latency.",
			ReadOnly:    true, Idempotent: true,
		}, analyzeInsight),
	}
}

func init() {
	typed(func(_ error, ta *driver.TraceActiveError) *Error {
		msg := "another client of the browser is recording a trace"
		if ta.TabID != "" {
			msg = fmt.Sprintf("tab %s is already recording a trace; Chromium records one at a time per browser", ta.TabID)
		}
		return &Error{Code: TraceActive, Message: msg, Recoverable: true,
			Hint: "stop it with performance_stop_trace (target: that tab), then start again"}
	})
	sentinel(driver.ErrNoTrace, func(error, error) *Error {
		return &Error{Code: NoTrace, Message: "no trace is recording in this tab",
			Hint: "start one with performance_start_trace, or give the target of the tab that records it"}
	})
	sentinel(trace.ErrFormat, func(err, _ error) *Error {
		return &Error{Code: InvalidArgs, Message: err.Error(), Hint: "give a trace file cdpkit saved (.json or .json.gz)"}
	})
}

// checkTracePath refuses a trace file name that is not .json or .json.gz,
// or that the artifact dir refuses.
func checkTracePath(env *Env, name string) error {
	if name == "" {
		return nil
	}
	if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".json.gz") {
		return errorf(InvalidArgs, false, "end it in .json or .json.gz", "filePath %q is not a .json or .json.gz file", name)
	}
	return env.Artifacts.Check(name)
}

func (in *startTraceArgs) check(_ context.Context, env *Env) error {
	if in.AutoStop < 0 || time.Duration(in.AutoStop)*time.Millisecond > MaxTimeout {
		return errorf(InvalidArgs, false, fmt.Sprintf("give autoStop in ms, at most %d", MaxTimeout.Milliseconds()), "autoStop %d is out of range", in.AutoStop)
	}
	return checkTracePath(env, in.FilePath)
}

func (in *traceArgs) check(_ context.Context, env *Env) error {
	if in.DurationMS < 0 || time.Duration(in.DurationMS)*time.Millisecond > MaxTimeout {
		return errorf(InvalidArgs, false, fmt.Sprintf("give durationMs in ms, at most %d", MaxTimeout.Milliseconds()), "durationMs %d is out of range", in.DurationMS)
	}
	return checkTracePath(env, in.FilePath)
}

func (in *insightArgs) check(_ context.Context, env *Env) error {
	if trace.InsightName(in.Name) == "" {
		return errorf(InvalidArgs, false, "use one of "+strings.Join(trace.Insights, ", "), "unknown insight %q", in.Name)
	}
	return nil
}

// traceStartedData is performance_start_trace's result without autoStop.
type traceStartedData struct {
	Tracing    bool   `json:"tracing"`
	Throttling string `json:"throttling"`
	Note       string `json:"note"`
}

// traceData is a trace tool's result; the summary follows as text.
type traceData struct {
	Path       string  `json:"path,omitempty"`
	Bytes      int64   `json:"bytes,omitempty"`
	Throttling string  `json:"throttling"`
	StoppedBy  string  `json:"stoppedBy,omitempty"` // when not by this call: deadline or shutdown
	DataLost   bool    `json:"dataLost,omitempty"`
	LCP        float64 `json:"lcpMs,omitempty"`
	CLS        float64 `json:"cls"`
	TBT        float64 `json:"tbtMs"`
	LongTasks  int     `json:"longTasks"`
}

// startTracing brings the tab to the front and starts its trace, saved
// to name (a default one when empty) when it stops, within limit.
func startTracing(ctx context.Context, env *Env, tab driver.TabDriver, name string, limit time.Duration) error {
	if name == "" {
		name = filepath.Join("traces", time.Now().Format("20060102-150405.000")+"-"+tab.ID()[:min(6, len(tab.ID()))]+".json")
	}
	progress(ctx, "starting the trace")
	if err := tab.MakeActive(ctx, true); err != nil {
		return err
	}
	tr, err := role[driver.Tracer](env, tab, "performance traces")
	if err != nil {
		return err
	}
	return tr.StartTrace(ctx, driver.TraceOptions{Limit: limit, Save: func(r io.Reader) (string, error) {
		return env.Artifacts.Write(name, func(w io.Writer) error {
			if !strings.HasSuffix(name, ".gz") {
				_, err := io.Copy(w, r)
				return err
			}
			zw := gzip.NewWriter(w)
			if _, err := io.Copy(zw, r); err != nil {
				return err
			}
			return zw.Close()
		})
	}})
}

func startTrace(ctx context.Context, env *Env, d *door, in startTraceArgs) (*Result, error) {
	limit := traceLimit
	if in.AutoStop > 0 {
		wait := time.Duration(in.AutoStop) * time.Millisecond
		if err := fits(ctx, wait, "autoStop"); err != nil {
			return nil, err
		}
		limit = wait + traceReserve // never outlives the call
	}
	if err := startTracing(ctx, env, d.tab, in.FilePath, limit); err != nil {
		return nil, err
	}
	if in.AutoStop == 0 {
		if in.Reload {
			if err := reloadForTrace(ctx, d.tab); err != nil {
				return nil, err
			}
		}
		em, err := role[driver.Emulator](env, d.tab, "emulate")
		if err != nil {
			return nil, err
		}
		e, err := em.Emulate(ctx, driver.EmulationChange{}) // changes nothing; reports what is in effect
		if err != nil {
			return nil, err
		}
		th := throttlingText(e)
		return &Result{Data: traceStartedData{Tracing: true, Throttling: th,
			Note: "recording; performance_stop_trace saves and summarizes it (it stops by itself after 5 min)"}}, nil
	}
	return recordAndStop(ctx, env, d.tab, in.Reload, time.Duration(in.AutoStop)*time.Millisecond)
}

func perfTrace(ctx context.Context, env *Env, d *door, in traceArgs) (*Result, error) {
	reload := in.Reload == nil || *in.Reload
	wait := traceIdle
	if reload {
		wait = traceSettle
	}
	if in.DurationMS > 0 {
		wait = time.Duration(in.DurationMS) * time.Millisecond
	}
	if err := fits(ctx, wait, "durationMs"); err != nil {
		return nil, err
	}
	limit := traceLimit
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl) // never outlives the call
	}
	if err := startTracing(ctx, env, d.tab, in.FilePath, limit); err != nil {
		return nil, err
	}
	return recordAndStop(ctx, env, d.tab, reload, wait)
}

// fits refuses a recording of wait that leaves too little of the call's
// time to save and analyze the trace.
func fits(ctx context.Context, wait time.Duration, arg string) error {
	dl, ok := ctx.Deadline()
	if !ok || time.Until(dl) > wait+traceReserve {
		return nil
	}
	return errorf(InvalidArgs, false, fmt.Sprintf("raise timeout_ms to %d or more, or record for less", (wait+traceReserve+time.Second).Milliseconds()),
		"%s %d ms does not leave time in this call to save and analyze the trace", arg, wait.Milliseconds())
}

// recordAndStop reloads the page if asked, records for wait more, then
// stops, saves and summarizes the trace. The trace is stopped whatever
// fails on the way.
func recordAndStop(ctx context.Context, env *Env, tab driver.TabDriver, reload bool, wait time.Duration) (res *Result, err error) {
	tr, err := role[driver.Tracer](env, tab, "performance traces")
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceReserve)
			defer cancel()
			tr.StopTrace(sctx)
		}
	}()
	if reload {
		if err := reloadForTrace(ctx, tab); err != nil {
			return nil, err
		}
	}
	if err := recordTrace(ctx, wait); err != nil {
		return nil, err
	}
	stopped = true
	progress(ctx, "stopping and saving the trace")
	end := heartbeat(ctx, "stopping and saving the trace")
	f, err := tr.StopTrace(ctx)
	end()
	if err != nil {
		return nil, err
	}
	return traceResult(ctx, env, f)
}

func reloadForTrace(ctx context.Context, tab driver.TabDriver) error {
	progress(ctx, "reloading the page")
	_, err := tab.Reload(ctx, false, nil)
	return err
}

// recordTrace waits while the trace records.
func recordTrace(ctx context.Context, wait time.Duration) error {
	progress(ctx, "recording")
	defer heartbeat(ctx, "recording")()
	done := time.NewTimer(wait)
	defer done.Stop()
	select {
	case <-done.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func stopTrace(ctx context.Context, env *Env, d *door, _ stopTraceArgs) (*Result, error) {
	progress(ctx, "stopping and saving the trace")
	end := heartbeat(ctx, "stopping and saving the trace")
	tr, err := role[driver.Tracer](env, d.tab, "performance traces")
	if err != nil {
		return nil, err
	}
	f, err := tr.StopTrace(ctx)
	end()
	if err != nil {
		return nil, err
	}
	return traceResult(ctx, env, f)
}

// traceResult analyzes a saved trace and builds the result, within
// summaryLimit characters.
func traceResult(ctx context.Context, env *Env, f *driver.TraceFile) (*Result, error) {
	if f.Err != nil {
		return nil, f.Err
	}
	rememberTrace(env, f.Path, f.TabID)
	progress(ctx, "analyzing the trace")
	rep, err := analyzeFile(ctx, env, f.Path)
	if err != nil {
		return nil, err
	}
	data := traceData{Path: f.Path, Bytes: f.Bytes, DataLost: f.DataLost,
		Throttling: throttlingText(driver.Emulation{CPUThrottling: f.CPUThrottling, Network: f.Network, NetworkCustom: f.NetworkCustom}),
		CLS:        rep.CLS.Value, TBT: rep.TBT, LongTasks: len(rep.Tasks)}
	if f.StoppedBy != "call" {
		data.StoppedBy = f.StoppedBy
	}
	if rep.LCP != nil {
		data.LCP = rep.LCP.MS
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return &Result{Data: data, Text: rep.Summary(summaryLimit - len(raw) - 1)}, nil
}

// throttlingText says what throttling a tab emulates: "none", or such as
// "CPU 4x slower, network slow3g".
func throttlingText(e driver.Emulation) string {
	var parts []string
	if e.CPUThrottling > 1 {
		parts = append(parts, fmt.Sprintf("CPU %gx slower", e.CPUThrottling))
	}
	if n := e.NetworkCustom; e.Network == "custom" && n != nil {
		parts = append(parts, fmt.Sprintf("network custom (%g ms, %g/%g kbit/s down/up)", n.LatencyMS, n.DownloadKbps, n.UploadKbps))
	} else if e.Network != "" {
		parts = append(parts, "network "+e.Network)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// analyzeFile analyzes the trace at path, of the tab that recorded it
// when this process did (a trace holds every tab's renderer), else of the
// first tab the trace names.
func analyzeFile(ctx context.Context, env *Env, path string) (*trace.Report, error) {
	f, err := env.Artifacts.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tab, _ := tracedTabs.Load(tracePathKey(env, path))
	frame, _ := tab.(string)
	rep, err := trace.AnalyzeFrame(policy.ContextReader(ctx, f), frame)
	if err != nil {
		return nil, fmt.Errorf("analyzing %s: %w", filepath.Base(path), err)
	}
	return rep, nil
}

// lastTraces holds the path of each env's (browser manager and scope's)
// last trace, for performance_analyze_insight without a trace.
var lastTraces sync.Map // traceOwner → string

type traceOwner struct {
	m *driver.Manager
	s *driver.Scope
}

// tracedTabs holds the tab (its target id, its main frame's id) each trace
// file this process saved recorded, by tracePathKey.
var tracedTabs sync.Map // string → string

func rememberTrace(env *Env, path, tabID string) {
	lastTraces.Store(traceOwner{env.Browsers, env.Scope}, path)
	tracedTabs.Store(tracePathKey(env, path), tabID)
}

// tracePathKey is a trace file's absolute path: a name relative to the
// artifact dir, as a caller may give it, is joined to it.
func tracePathKey(env *Env, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(env.Artifacts.Dir(), name)
}

func analyzeInsight(ctx context.Context, env *Env, in insightArgs) (*Result, error) {
	path := in.Trace
	if path == "" {
		p, ok := lastTraces.Load(traceOwner{env.Browsers, env.Scope})
		if !ok {
			return nil, errorf(NoTrace, false, "record one with performance_trace, or give trace: a file in the artifact dir",
				"no trace was recorded in this session")
		}
		path = p.(string)
	}
	rep, err := analyzeFile(ctx, env, path)
	if err != nil {
		return nil, err
	}
	text, err := rep.Insight(in.Name)
	if errors.Is(err, trace.ErrUnknownInsight) {
		return nil, errorf(InvalidArgs, false, "use one of "+strings.Join(trace.Insights, ", "), "%v", err)
	}
	if err != nil {
		return nil, err
	}
	return &Result{Data: map[string]string{"insight": trace.InsightName(in.Name), "trace": path}, Text: text}, nil
}
