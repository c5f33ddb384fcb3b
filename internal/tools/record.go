package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/record"
)

// EnvRecordingMax caps each recording's spool: sizes and durations such
// as "500MB,10m" (see record.ParseLimits).
const EnvRecordingMax = "CDPKIT_RECORDING_MAX"

const ffmpegHint = "install ffmpeg (apt install ffmpeg, brew install ffmpeg) or set CDPKIT_FFMPEG to its path"

type startRecordingArgs struct {
	Target        string `json:"target,omitempty"`
	Format        string `json:"format,omitempty" jsonschema:"frame format: jpeg (default) or png"`
	Quality       int    `json:"quality,omitempty" jsonschema:"jpeg quality 1-100"`
	MaxWidth      int    `json:"maxWidth,omitempty" jsonschema:"largest frame width in px (default: the viewport)"`
	MaxHeight     int    `json:"maxHeight,omitempty" jsonschema:"largest frame height in px"`
	EveryNthFrame int    `json:"everyNthFrame,omitempty" jsonschema:"keep every Nth repaint (default 1)"`
	Codec         string `json:"codec,omitempty" jsonschema:"h264 (default: plays everywhere) or hevc (smaller)"`

	ff     *record.FFmpeg // by check
	enc    record.Encoder // by check
	limits record.Limits
}

type stopRecordingArgs struct {
	Target   string `json:"target,omitempty"`
	SavePath string `json:"savePath,omitempty" jsonschema:"where the .mp4 goes, in the artifact dir"`

	ended *recording // by check: a recording of a tab that is gone, which needs no door
}

func recordTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "start_screen_recording",
			Description: "Record a tab to video until stop_screen_recording: a frame per repaint, spooled to disk; it survives navigation. " +
				"Brings the tab to the front (a background tab does not paint). Needs ffmpeg. One recording per tab.",
			NoQueue: true, Dialog: DialogPasses,
			Verbs: []Verb{{Name: "record start", Summary: "start recording the active tab to video", Rank: 20}},
		}, startRecording),
		defineOn(Tool{
			Name: "stop_screen_recording",
			Description: "Stop a tab's recording and encode it to MP4 (H.264 unless started with codec hevc): path, codec, durationMs, frameCount, encodedFrames. Timing follows the real repaints. " +
				"Also reports a recording that ended by itself (tab closed, cap reached).",
			NoQueue: true, Dialog: DialogPasses, Recovers: true,
			Verbs: []Verb{{Name: "record stop", Args: []string{"savePath:path?"}, Summary: "stop recording and save the MP4 (to path, else the artifact dir)", Rank: 21}},
		}, stopRecording),
	}
}

func (in *startRecordingArgs) check(ctx context.Context, env *Env) error {
	switch in.Format {
	case "", "jpeg":
	case "png":
		if in.Quality != 0 {
			return errorf(InvalidArgs, false, "quality is for jpeg; omit it for png", "quality does not apply to png")
		}
	default:
		return errorf(InvalidArgs, false, "use jpeg or png", "format %q is not supported", in.Format)
	}
	if in.Quality < 0 || in.Quality > 100 {
		return errorf(InvalidArgs, false, "use 1-100", "quality %d is out of range", in.Quality)
	}
	if in.MaxWidth < 0 || in.MaxHeight < 0 || in.EveryNthFrame < 0 {
		return errorf(InvalidArgs, false, "give positive numbers", "maxWidth, maxHeight and everyNthFrame cannot be negative")
	}
	limits, err := record.ParseLimits(cmp.Or(env.RecordingMax, os.Getenv(EnvRecordingMax)))
	if err != nil {
		return errorf(InvalidArgs, false, "set "+EnvRecordingMax+" to sizes and durations such as 500MB,10m", "%v", err)
	}
	in.limits = limits
	// Before any capture: a recording that could never be encoded is
	// refused now, not thrown away at the stop.
	switch in.Codec {
	case "", record.DefaultCodec, record.CodecHEVC:
	default:
		return errorf(InvalidArgs, false, "use h264 or hevc", "codec %q is not supported", in.Codec)
	}
	ff, err := record.Probe(ctx, env.FFmpeg)
	if err != nil {
		return errorf(FFmpegUnavailable, false, ffmpegHint, "%s", strings.TrimPrefix(err.Error(), "record: "))
	}
	enc, ok := ff.Choose(in.Codec)
	if !ok {
		return errorf(FFmpegUnavailable, false, "use codec h264, or an ffmpeg built with libx265",
			"%s has no %s encoder", ff.Path, in.Codec)
	}
	in.ff, in.enc = ff, enc
	return nil
}

// startedData is what start_screen_recording returns.
type startedData struct {
	Target    string `json:"target"`
	Format    string `json:"format"`
	SpoolDir  string `json:"spoolDir"`
	Encoder   string `json:"encoder"`
	Codec     string `json:"codec"`
	StartedAt string `json:"startedAt"`
	MaxBytes  int64  `json:"maxBytes"`
	MaxMs     int64  `json:"maxMs"`
}

func startRecording(ctx context.Context, env *Env, d *door, in startRecordingArgs) (*Result, error) {
	format := cmp.Or(in.Format, "jpeg")
	r, err := recordings.reserve(env, d.tab.ID())
	if err != nil {
		return nil, err
	}
	start := time.Now()
	id := strings.ToLower(d.tab.ID())
	dir := filepath.Join(env.Artifacts.Dir(), "recordings", fmt.Sprintf("spool-%s-%s", id[:min(6, len(id))], start.Format("20060102-150405.000")))
	spool, err := record.NewSpool(dir, format, start, in.limits)
	if err != nil {
		recordings.drop(r)
		return nil, err
	}
	// A tab in the background does not paint, so it would send no frame.
	progress(ctx, "bringing the tab to the front")
	if err := d.tab.MakeActive(ctx, true); err != nil {
		spool.Remove()
		recordings.drop(r)
		return nil, err
	}
	progress(ctx, "starting the screencast")
	opts := driver.ScreencastOptions{
		Format: format, Quality: in.Quality, MaxWidth: in.MaxWidth, MaxHeight: in.MaxHeight, EveryNthFrame: in.EveryNthFrame,
	}
	sc, err := role[driver.Screencaster](env, d.tab, "screen recording")
	if err != nil {
		spool.Remove()
		recordings.drop(r)
		return nil, err
	}
	stream, err := sc.StartScreencast(ctx, opts, spoolSink{spool})
	if err != nil {
		spool.Remove()
		recordings.drop(r)
		return nil, err
	}
	r.tab, r.opts = d.tab, opts
	r.begin(env, stream, spool, in.ff, in.enc, in.limits)
	return &Result{Data: startedData{
		Target: d.tab.ID(), Format: format, SpoolDir: dir, Encoder: in.enc.Name, Codec: in.enc.Codec,
		StartedAt: start.UTC().Format(time.RFC3339Nano), MaxBytes: limitsBytes(in.limits), MaxMs: limitsDuration(in.limits).Milliseconds(),
	}}, nil
}

func limitsBytes(l record.Limits) int64 {
	if l.Bytes > 0 {
		return l.Bytes
	}
	return record.DefaultMaxBytes
}

func limitsDuration(l record.Limits) time.Duration {
	if l.Duration > 0 {
		return l.Duration
	}
	return record.DefaultMaxDuration
}

// spoolSink hands screencast frames to a spool.
type spoolSink struct{ s *record.Spool }

func (k spoolSink) Frame(data []byte, at time.Time) error { return k.s.Add(data, at) }

func (in *stopRecordingArgs) check(_ context.Context, env *Env) error {
	if in.SavePath != "" {
		if !strings.EqualFold(filepath.Ext(in.SavePath), ".mp4") {
			return errorf(InvalidArgs, false, "give a savePath ending in .mp4", "savePath %q is not an .mp4 file", in.SavePath)
		}
		if err := env.Artifacts.Check(in.SavePath); err != nil {
			return err
		}
	}
	in.ended = recordings.gone(env, in.Target)
	return nil
}

func (in *stopRecordingArgs) noTab() bool { return in.ended != nil }

func stopRecording(ctx context.Context, env *Env, d *door, in stopRecordingArgs) (*Result, error) {
	r := in.ended
	if r == nil {
		if r = recordings.take(env, d.tab.ID()); r == nil {
			return nil, errorf(NoRecording, false, "start one with start_screen_recording", "tab %s is not being recorded", d.tab.ID())
		}
	}
	// The encode has its own deadline (record.Deadline), which may be
	// longer than the call's: when the call runs out of time the encode
	// goes on, and the next stop returns its video. A cancelled call
	// (the client gave up) ends it, and ffmpeg with it.
	live := func(msg string) {
		if ctx.Err() == nil {
			progress(ctx, msg)
		}
	}
	ectx, cancel := context.WithCancel(WithProgress(context.Background(), live))
	unhook := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	type outcome struct {
		data *recordingData
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		defer cancel()
		data, err := r.finish(ectx, env, "stop", in.SavePath)
		done <- outcome{data, err}
	}()
	select {
	case o := <-done:
		unhook()
		if o.err != nil {
			return nil, o.err
		}
		return &Result{Data: o.data}, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			recordings.park(r)
			return nil, errorf(Timeout, true, "call stop_screen_recording again (with a larger timeout_ms) to get the video",
				"the video of tab %s is still being encoded", r.key.tab)
		}
		return nil, ctx.Err()
	}
}

// recordingData is what stop_screen_recording returns.
type recordingData struct {
	Target        string `json:"target"`
	Path          string `json:"path"`
	Bytes         int64  `json:"bytes"`
	DurationMs    int64  `json:"durationMs"`
	FrameCount    int    `json:"frameCount"`
	EncodedFrames int    `json:"encodedFrames"`
	DroppedFrames int    `json:"droppedFrames"`
	Width         int    `json:"width"`
	Height        int    `json:"height"`
	Codec         string `json:"codec"`
	Encoder       string `json:"encoder"`
	EncodeMs      int64  `json:"encodeMs"`
	// StoppedBy says what ended the capture: "stop", "cap", "tab closed",
	// "tab crashed" or "shutdown".
	StoppedBy string `json:"stoppedBy"`
	Note      string `json:"note,omitempty"`
}

// saveVideo moves the encoded video into the artifact dir, at name or a
// default one, and returns its path and size.
func saveVideo(env *Env, src, tabID, name string, at time.Time) (string, int64, error) {
	if name == "" {
		id := strings.ToLower(tabID)
		name = filepath.Join("recordings", fmt.Sprintf("screen-recording-%s-%s.mp4", id[:min(6, len(id))], at.Format("20060102-150405.000")))
	}
	var n int64
	path, err := env.Artifacts.Write(name, func(w io.Writer) error {
		f, err := policy.OpenRegular(src)
		if err != nil {
			return err
		}
		defer f.Close()
		n, err = io.Copy(w, f)
		return err
	})
	if err != nil {
		return "", 0, err
	}
	return path, n, nil
}

// encodeError is an encode failure as an agent sees it.
func encodeError(err error) error {
	var ee *record.EncodeError
	if errors.As(err, &ee) {
		return errorf(EncodeFailed, false, "the frames are kept in "+ee.Spool+"; re-run: "+ee.Command,
			"%s", strings.TrimPrefix(ee.Error(), "record: "))
	}
	if errors.Is(err, record.ErrNoFrames) {
		return errorf(EncodeFailed, false, "a tab in the background does not paint: keep the recorded tab in front (select_page)",
			"the recording captured no frames")
	}
	return err
}
