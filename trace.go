package cdpkit

import (
	"context"
	"time"
)

// TraceOptions start a performance trace. Nil records until StopTrace.
type TraceOptions struct {
	Reload bool   // reload the page once recording starts, to measure its load
	Path   string // trace file in the artifact dir, .json or .json.gz; "" names one
}

// StartTrace starts a performance trace of the tab, as DevTools'
// Performance panel records one, and brings the tab to the front (a
// background tab does not paint). One trace runs at a time per browser
// (else TRACE_ACTIVE); it stops by itself after five minutes.
func (t *Tab) StartTrace(ctx context.Context, o *TraceOptions) error {
	if o == nil {
		o = &TraceOptions{}
	}
	return t.call(ctx, "performance_start_trace", map[string]any{"reload": o.Reload, "filePath": o.Path}, nil)
}

// Trace is a saved performance trace (it opens in DevTools and
// Perfetto) with its main metrics; Summary has them all as text: LCP
// with its element and phases, FCP, CLS with shifted nodes, TBT, long
// tasks with scripts, INP, main-thread time, render-blocking requests.
type Trace struct {
	Path       string  `json:"path,omitempty"`
	Bytes      int64   `json:"bytes,omitempty"`
	Throttling string  `json:"throttling"` // the CPU and network throttling it ran under
	StoppedBy  string  `json:"stoppedBy,omitempty"`
	DataLost   bool    `json:"dataLost,omitempty"`
	LCPMs      float64 `json:"lcpMs,omitempty"`
	CLS        float64 `json:"cls"`
	TBTMs      float64 `json:"tbtMs"`
	LongTasks  int     `json:"longTasks"`
	Summary    string  `json:"-"`
}

// StopTrace stops the tab's trace, saves it and returns its analysis; it
// fails with NO_TRACE when none runs.
func (t *Tab) StopTrace(ctx context.Context) (*Trace, error) {
	return t.trace(ctx, "performance_stop_trace", map[string]any{})
}

// TraceLoad traces a reload of the page in one call: start, reload,
// record for a moment after the load, stop, save and analyze, as
// StopTrace returns it.
func (t *Tab) TraceLoad(ctx context.Context) (*Trace, error) {
	return t.trace(ctx, "performance_trace", map[string]any{})
}

func (t *Tab) trace(ctx context.Context, tool string, args map[string]any) (*Trace, error) {
	args["target"], args["lease"] = t.id, t.lease
	res, err := t.b.run(ctx, tool, args)
	if err != nil {
		return nil, err
	}
	var tr Trace
	if err := decode(res.Data, &tr); err != nil {
		return nil, err
	}
	tr.Summary = res.Text
	return &tr, nil
}

// Insight is one insight of a trace in detail, as text.
type Insight struct {
	Name  string `json:"insight"`
	Trace string `json:"trace"` // the trace file it read
	Text  string `json:"-"`
}

// Insight explains one insight of the browser's last trace (or of the
// trace file tracePath in the artifact dir, when not ""): lcp, cls,
// long-tasks, inp, main-thread, render-blocking, third-parties or
// document-latency.
func (b *Browser) Insight(ctx context.Context, name, tracePath string) (*Insight, error) {
	res, err := b.run(ctx, "performance_analyze_insight", map[string]any{"name": name, "trace": tracePath})
	if err != nil {
		return nil, err
	}
	var in Insight
	if err := decode(res.Data, &in); err != nil {
		return nil, err
	}
	in.Text = res.Text
	return &in, nil
}

// RecordingOptions start a screen recording. Nil means JPEG frames at
// the viewport's size, every repaint, encoded as H.264.
type RecordingOptions struct {
	Format        string // frame format: jpeg (default) or png
	Quality       int    // jpeg quality, 1-100
	MaxWidth      int    // largest frame width in px; zero means the viewport's
	MaxHeight     int
	EveryNthFrame int    // keep every Nth repaint; zero means 1
	Codec         string // h264 (default: plays everywhere) or hevc (smaller)
}

// StartRecording records the tab to video until StopRecording: a frame
// per repaint, spooled to disk, through navigations. It brings the tab to
// the front and needs ffmpeg (else FFMPEG_UNAVAILABLE); one recording
// runs per tab (else RECORDING_ACTIVE).
func (t *Tab) StartRecording(ctx context.Context, o *RecordingOptions) error {
	if o == nil {
		o = &RecordingOptions{}
	}
	return t.call(ctx, "start_screen_recording", map[string]any{"format": o.Format, "quality": o.Quality,
		"maxWidth": o.MaxWidth, "maxHeight": o.MaxHeight, "everyNthFrame": o.EveryNthFrame, "codec": o.Codec}, nil)
}

// Video is an encoded screen recording.
type Video struct {
	Path          string `json:"path"`
	Bytes         int64  `json:"bytes"`
	DurationMs    int64  `json:"durationMs"`
	FrameCount    int    `json:"frameCount"`
	EncodedFrames int    `json:"encodedFrames"`
	DroppedFrames int    `json:"droppedFrames"`
	Width         int    `json:"width"`
	Height        int    `json:"height"`
	Codec         string `json:"codec"`
	// StoppedBy is "stop" for StopRecording, or why it ended by itself
	// (the tab closed, a cap was reached).
	StoppedBy string `json:"stoppedBy"`
	Note      string `json:"note,omitempty"`
}

// Duration is the video's length.
func (v *Video) Duration() time.Duration { return time.Duration(v.DurationMs) * time.Millisecond }

// StopRecording stops the tab's recording and encodes it to MP4 at
// savePath in the artifact dir ("" names one). It also returns a
// recording that ended by itself; without one it fails with
// NO_RECORDING.
func (t *Tab) StopRecording(ctx context.Context, savePath string) (*Video, error) {
	var v Video
	if err := t.call(ctx, "stop_screen_recording", map[string]any{"savePath": savePath}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}
