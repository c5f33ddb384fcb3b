package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/tracing"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Bounds of a trace.
const (
	// DefaultTraceLimit is how long a trace may run when TraceOptions
	// gives no Limit: it stops by itself then.
	DefaultTraceLimit = 60 * time.Second
	// MaxTraceLimit is the longest Limit allowed.
	MaxTraceLimit = 10 * time.Minute
	// traceSaveTimeout bounds saving a trace stopped by its deadline or by
	// the browser closing, when no caller's context does.
	traceSaveTimeout = 60 * time.Second
	// traceChunk is how much one IO.read asks for.
	traceChunk = 256 << 10
	// shutdownTraceTimeout bounds saving a recording trace as the browser
	// closes.
	shutdownTraceTimeout = 10 * time.Second
)

// traceCategories are what Chrome DevTools' Performance panel records:
// the timeline, JavaScript execution and samples, user timing, loading
// metrics (FCP, LCP, layout shifts) and input latency. Screenshots are
// left out: they make a trace many times larger.
var traceCategories = []string{
	"-*",
	"devtools.timeline",
	"disabled-by-default-devtools.timeline",
	"disabled-by-default-devtools.timeline.frame",
	"disabled-by-default-devtools.timeline.stack",
	"disabled-by-default-devtools.timeline.invalidationTracking",
	"disabled-by-default-layout_shift.debug",
	"v8.execute",
	"disabled-by-default-v8.cpu_profiler",
	"toplevel",
	"blink.console",
	"blink.user_timing",
	"latencyInfo",
	"loading",
}

// tracer holds a browser's one running trace and the traces that stopped
// without a caller to hand them to.
type tracer struct {
	mu   sync.Mutex
	run  *traceRun            // guarded by mu; the recording trace, or nil
	left map[string]*traceRun // guarded by mu; stopped without a caller, by tab id, until StopTrace takes them
}

// traceRun is one trace from start to saved file.
type traceRun struct {
	tab   *Tab
	sess  *cdp.Session
	o     driver.TraceOptions
	timer *time.Timer // guarded by tracer.mu
	file  driver.TraceFile

	once sync.Once
	done chan struct{} // closed when the trace is saved, or failed to be
	err  error         // set before done closes
}

// StartTrace starts recording a trace of the tab as Chrome DevTools'
// Performance panel does. The trace runs until StopTrace, until o.Limit
// passes, or until the browser closes, and is then handed to o.Save. ctx
// bounds only the start. It fails with a [*TraceActiveError] while any
// trace records in the browser.
func (t *Tab) StartTrace(ctx context.Context, o driver.TraceOptions) error {
	if o.Save == nil {
		return fmt.Errorf("%w: a trace needs somewhere to be saved", driver.ErrInvalidArgument)
	}
	if o.Limit <= 0 {
		o.Limit = DefaultTraceLimit
	}
	if o.Limit > MaxTraceLimit {
		return fmt.Errorf("%w: a trace may run %s at most", driver.ErrInvalidArgument, MaxTraceLimit)
	}
	tr := &t.b.tracer
	s, err := t.session(ctx)
	if err != nil {
		return err
	}
	emu := t.Emulation()
	run := &traceRun{tab: t, sess: s, o: o, done: make(chan struct{}),
		file: driver.TraceFile{TabID: t.ID(), CPUThrottling: emu.CPUThrottling, Network: emu.Network, NetworkCustom: emu.NetworkCustom}}
	tr.mu.Lock()
	if r := tr.run; r != nil {
		select {
		case <-r.sess.Done(): // its tab went away, and the browser ended it
			tr.run = nil
		default:
			tr.mu.Unlock()
			return &driver.TraceActiveError{TabID: r.tab.ID()}
		}
	}
	tr.run = run // reserved before the browser is asked, so two starts cannot race
	delete(tr.left, t.ID())
	tr.mu.Unlock()

	driver.Step(ctx, "starting the trace")
	_, err = cdpapi.Call(ctx, s, tracing.Start, tracing.StartParams{
		TransferMode: tracing.StartTransferModeReturnAsStream,
		StreamFormat: tracing.StreamFormatJSON,
		TraceConfig:  &tracing.TraceConfig{IncludedCategories: traceCategories, RecordMode: tracing.TraceConfigRecordModeRecordUntilFull},
	})
	if err != nil {
		tr.mu.Lock()
		tr.run = nil
		tr.mu.Unlock()
		if strings.Contains(err.Error(), "already been started") {
			return &driver.TraceActiveError{}
		}
		return fmt.Errorf("browser: starting the trace: %w", err)
	}
	tr.mu.Lock()
	run.file.Started = time.Now()
	run.timer = time.AfterFunc(o.Limit, func() {
		ctx, cancel := context.WithTimeout(context.Background(), traceSaveTimeout)
		defer cancel()
		t.b.finishTrace(ctx, run, "deadline")
	})
	tr.mu.Unlock()
	return nil
}

// Tracing reports whether a trace of the tab is recording.
func (t *Tab) Tracing() bool {
	tr := &t.b.tracer
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.run != nil && tr.run.tab == t
}

// StopTrace stops the tab's trace and returns it once saved; a trace that
// already stopped at its deadline is returned, once. ctx bounds the stop
// and the save: when it ends first, the trace is lost and nothing is
// saved. It fails with [ErrNoTrace] when the tab has no trace.
func (t *Tab) StopTrace(ctx context.Context) (*driver.TraceFile, error) {
	tr := &t.b.tracer
	tr.mu.Lock()
	run := tr.run
	if run == nil || run.tab != t {
		run = tr.left[t.ID()]
		delete(tr.left, t.ID())
		tr.mu.Unlock()
		if run == nil {
			return nil, driver.ErrNoTrace
		}
		return run.result()
	}
	tr.mu.Unlock()
	// The last interaction's EventTiming entry (INP) is emitted at the
	// next paint after its handlers ran: let the page paint before the
	// trace ends, so a click just before stopping is in it. Bounded by
	// awaitFrameWithin; a page that does not paint does not hold this up.
	if s, err := t.session(ctx); err == nil {
		awaitFrameWithin(ctx, s, 2*frameWait)
		awaitFrameWithin(ctx, s, 2*frameWait)
	}
	t.b.finishTrace(ctx, run, "call")
	select {
	case <-run.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("browser: saving the trace: %w", ctx.Err())
	}
	tr.mu.Lock()
	delete(tr.left, t.ID()) // a deadline that won the race left it there
	tr.mu.Unlock()
	return run.result()
}

func (r *traceRun) result() (*driver.TraceFile, error) {
	if r.err != nil {
		return nil, r.err
	}
	f := r.file
	return &f, nil
}

// finishTrace stops run and saves it, once; a second caller waits for the
// first (bounded by its ctx). why is TraceFile.StoppedBy.
func (b *Browser) finishTrace(ctx context.Context, run *traceRun, why string) {
	run.once.Do(func() {
		b.tracer.mu.Lock()
		if run.timer != nil { // nil when the browser closes as the trace starts
			run.timer.Stop()
		}
		b.tracer.mu.Unlock()
		run.err = run.stop(ctx)
		run.file.StoppedBy = why
		run.file.Stopped = time.Now()
		if why != "call" {
			run.file.Err = run.err
			if run.err != nil {
				b.log.Warn("a trace stopped without a caller could not be saved", "tab", run.tab.ID(), "by", why, "err", run.err)
			}
		}
		tr := &b.tracer
		tr.mu.Lock()
		if tr.run == run {
			tr.run = nil
		}
		if why != "call" {
			if tr.left == nil {
				tr.left = make(map[string]*traceRun)
			}
			tr.left[run.tab.ID()] = run
		}
		tr.mu.Unlock()
		close(run.done)
	})
	select {
	case <-run.done:
	case <-ctx.Done():
	}
}

// stop ends the recording and streams the trace to Save.
func (r *traceRun) stop(ctx context.Context) error {
	complete, cancel := r.sess.Subscribe(tracing.TracingComplete.Method)
	defer cancel()
	driver.Step(ctx, "stopping the trace")
	if _, err := cdpapi.Call(ctx, r.sess, tracing.End, cdpapi.Empty{}); err != nil {
		return fmt.Errorf("browser: stopping the trace: %w", err)
	}
	driver.Step(ctx, "waiting for the browser to flush the trace")
	var ev tracing.EventTracingComplete
	select {
	case raw, ok := <-complete:
		if !ok {
			return fmt.Errorf("browser: waiting for the trace: %w", &cdp.SessionClosedError{Method: tracing.TracingComplete.Method})
		}
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("browser: reading the trace's end: %w", err)
		}
	case <-ctx.Done():
		return fmt.Errorf("browser: waiting for the trace: %w", ctx.Err())
	}
	if ev.Stream == "" {
		return fmt.Errorf("browser: the browser returned no trace stream")
	}
	r.file.DataLost = ev.DataLossOccurred
	driver.Step(ctx, "saving the trace")
	sr := &traceStream{ctx: ctx, s: r.sess, h: ev.Stream}
	defer func() {
		// Frees the browser's copy; bounded on its own, since ctx may be over.
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		cdpapi.Call(cctx, r.sess, cdpio.Close, cdpio.CloseParams{Handle: ev.Stream})
	}()
	path, err := r.o.Save(sr)
	if err != nil {
		return fmt.Errorf("browser: saving the trace: %w", err)
	}
	r.file.Path, r.file.Bytes = path, sr.n
	return nil
}

// traceStream reads a trace from the browser's IO stream, one chunk at a
// time, so no more than a chunk of it is in memory.
type traceStream struct {
	ctx  context.Context // the stop's: reading ends with it
	s    *cdp.Session
	h    cdpio.StreamHandle
	buf  []byte
	eof  bool
	n    int64
	fail error
}

func (r *traceStream) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.fail != nil {
			return 0, r.fail
		}
		if r.eof {
			return 0, io.EOF
		}
		res, err := cdpapi.Call(r.ctx, r.s, cdpio.Read, cdpio.ReadParams{Handle: r.h, Size: traceChunk})
		if err != nil {
			r.fail = fmt.Errorf("browser: reading the trace: %w", err)
			return 0, r.fail
		}
		r.buf, r.eof = res.Data, res.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.n += int64(n)
	return n, nil
}

// finishTraces stops and saves the trace still recording, if any, as the
// browser closes, within shutdownTraceTimeout.
func (b *Browser) finishTraces() {
	select {
	case <-b.conn.Done():
		return
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTraceTimeout)
	defer cancel()
	b.tracer.mu.Lock()
	run := b.tracer.run
	b.tracer.mu.Unlock()
	if run != nil {
		b.finishTrace(ctx, run, "shutdown")
	}
}
