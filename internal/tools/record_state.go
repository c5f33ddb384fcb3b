package tools

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/record"
)

// finishWait bounds the encode of a recording that ended by itself (its
// tab closed or crashed, or it reached its cap), on top of record.Deadline.
const finishWait = 10 * time.Minute

// streamStopWait bounds Page.stopScreencast.
const streamStopWait = 10 * time.Second

// recordings are the screen recordings of every browser this process
// drives, keyed by browser manager and tab: one per tab. A recording that
// ended by itself is encoded at once and kept until a stop call (or the
// end of the process) reports it.
var recordings = &recordingSet{active: map[recKey]*recording{}, ended: map[recKey]*recording{}}

type recKey struct {
	m   *driver.Manager
	tab string
}

type recordingSet struct {
	mu     sync.Mutex
	active map[recKey]*recording // guarded by mu; capturing (or starting)
	ended  map[recKey]*recording // guarded by mu; ended by itself, not yet reported
}

// recording is one tab's recording. The fields set by begin are read-only
// afterwards; done closes when it is finished (encoded or failed).
type recording struct {
	key   recKey
	scope *driver.Scope
	tab   driver.TabDriver
	opts  driver.ScreencastOptions

	begun   bool // guarded by recordingSet.mu
	stream  driver.ScreencastStream
	spool   *record.Spool
	ff      *record.FFmpeg
	enc     record.Encoder
	limits  record.Limits
	release func()        // lets the browser idle again
	stopped chan struct{} // closed when a stop call or shutdown takes it

	finishOnce sync.Once
	done       chan struct{}
	data       *recordingData // set before done closes
	err        error
}

// reserve claims tab's recording slot: RECORDING_ACTIVE if taken.
func (s *recordingSet) reserve(env *Env, tab string) (*recording, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := recKey{env.Browsers, tab}
	if s.active[k] != nil {
		return nil, errorf(RecordingActive, false, "stop it first with stop_screen_recording", "tab %s is already being recorded", tab)
	}
	r := &recording{key: k, scope: env.Scope, stopped: make(chan struct{}), done: make(chan struct{})}
	s.active[k] = r
	return r, nil
}

// drop gives back a slot whose recording failed to start.
func (s *recordingSet) drop(r *recording) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active[r.key] == r {
		delete(s.active, r.key)
	}
}

// begin marks r capturing and watches for its end.
func (r *recording) begin(env *Env, stream driver.ScreencastStream, spool *record.Spool, ff *record.FFmpeg, enc record.Encoder, limits record.Limits) {
	recordings.mu.Lock()
	r.stream, r.spool, r.ff, r.enc, r.limits = stream, spool, ff, enc, limits
	r.release = env.Browsers.Use() // an idle browser is not stopped under a recording
	r.begun = true
	recordings.mu.Unlock()
	go r.watch(env)
}

// watch finishes r when it ends by itself: its stream ends (tab closed or
// crashed, spool cap) or its duration cap passes with no frame to notice.
func (r *recording) watch(env *Env) {
	cap := time.NewTimer(time.Until(r.spool.Start().Add(limitsDuration(r.limits))))
	defer cap.Stop()
	var why string
	select {
	case <-r.stopped:
		return
	case <-r.stream.Done():
		if why = endedBy(r.stream.Err()); why == "" {
			return // stopped by a call
		}
	case <-cap.C:
		why = "cap"
	}
	if !recordings.claimEnded(r) {
		return // a stop call took it meanwhile
	}
	ctx, cancel := context.WithTimeout(context.Background(), finishWait)
	defer cancel()
	data, err := r.finish(ctx, env, why, "")
	if err != nil {
		env.Log.Warn("a recording that ended by itself failed to encode", "tab", r.key.tab, "why", why, "err", err)
		return
	}
	env.Log.Info("a recording ended by itself", "tab", r.key.tab, "why", why, "path", data.Path)
}

// endedBy names why a screencast ended by itself with err; "" for nil.
func endedBy(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, record.ErrCap):
		return "cap"
	case errors.Is(err, driver.ErrTargetCrashed):
		return "tab crashed"
	default:
		return "tab closed"
	}
}

// claimEnded moves r, which ended by itself, from active to ended, unless
// a stop call took it first.
func (s *recordingSet) claimEnded(r *recording) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active[r.key] != r {
		return false
	}
	delete(s.active, r.key)
	s.ended[r.key] = r
	close(r.stopped)
	return true
}

// park keeps r, whose stop call ran out of time while it encodes, for
// the next stop call.
func (s *recordingSet) park(r *recording) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended[r.key] == nil {
		s.ended[r.key] = r
	}
}

// take hands tab's recording to a stop call: the capturing one, else one
// that ended by itself; nil if none.
func (s *recordingSet) take(env *Env, tab string) *recording {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := recKey{env.Browsers, tab}
	if r := s.active[k]; r != nil && r.begun {
		delete(s.active, k)
		close(r.stopped)
		return r
	}
	if r := s.ended[k]; r != nil {
		delete(s.ended, k)
		return r
	}
	return nil
}

// gone hands a stop call naming target the recording of a tab that is
// gone, which the call cannot resolve: by its exact tab ID, or for no
// target the latest such recording when nothing else is being recorded.
func (s *recordingSet) gone(env *Env, target string) *recording {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pick *recording
	for k, r := range s.ended {
		if k.m != env.Browsers || r.scope != env.Scope {
			continue
		}
		if target == k.tab {
			pick = r
			break
		}
		if target == "" && (pick == nil || r.spool.Start().After(pick.spool.Start())) {
			pick = r
		}
	}
	if pick == nil {
		return nil
	}
	if target == "" {
		for k, r := range s.active {
			if k.m == env.Browsers && r.scope == env.Scope {
				return nil // the door finds the recorded tab
			}
		}
	}
	delete(s.ended, pick.key)
	return pick
}

// finish stops r's capture (if it still runs), encodes the spool and
// saves the video, once: a later caller waits for the first one's result
// within ctx. ctx bounds the encode; ffmpeg ends with it.
func (r *recording) finish(ctx context.Context, env *Env, why, savePath string) (*recordingData, error) {
	first := false
	r.finishOnce.Do(func() { first = true })
	if !first {
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err == nil && savePath != "" {
			d := *r.data
			d.Note = "savePath was not used: the recording had already ended and was saved at path"
			return &d, nil
		}
		return r.data, r.err
	}
	defer close(r.done)
	r.data, r.err = r.encode(ctx, env, why, savePath)
	return r.data, r.err
}

func (r *recording) encode(ctx context.Context, env *Env, why, savePath string) (*recordingData, error) {
	stopAt := time.Now()
	if why == "cap" {
		if ce := r.spool.Capped(); ce != nil {
			stopAt = r.spool.Start().Add(ce.Elapsed)
		} else {
			stopAt = minTime(stopAt, r.spool.Start().Add(limitsDuration(r.limits)))
		}
	}
	progress(ctx, "stopping the screencast")
	sctx, cancel := context.WithTimeout(ctx, streamStopWait)
	defer cancel()
	if err := r.stream.Stop(sctx); err != nil {
		env.Log.Debug("stopping a screencast", "tab", r.key.tab, "err", err)
	}
	if ended := endedBy(r.stream.Err()); ended != "" && why == "stop" {
		why = ended // it ended by itself just before the stop came
	}
	if n, _ := r.spool.Frames(); n == 0 && why == "stop" {
		// Nothing painted (a still page on a busy machine, or a tab
		// kept in the background): the tab as it is now stands for the
		// whole recording, rather than no video at all.
		if err := r.seed(ctx); err != nil {
			env.Log.Debug("no frame to seed a recording with", "tab", r.key.tab, "err", err)
		}
	}
	r.spool.Close()
	r.release()
	frames, _ := r.spool.Frames()
	progress(ctx, fmt.Sprintf("encoding %d frames with %s", frames, r.enc.Name))
	enc, err := r.ff.Encode(ctx, r.spool.Dir(), r.enc, r.spool.Start(), stopAt, func(p record.Progress) {
		progress(ctx, fmt.Sprintf("encoding: %.1fs of %.1fs", p.Done.Seconds(), p.Total.Seconds()))
	})
	if err != nil {
		return nil, encodeError(err)
	}
	if enc.Warnings != "" {
		env.Log.Warn("ffmpeg warned while encoding", "tab", r.key.tab, "encoder", r.enc.Name, "warnings", enc.Warnings)
	}
	progress(ctx, "saving the video")
	path, n, err := saveVideo(env, enc.Path, r.key.tab, savePath, r.spool.Start())
	if err != nil {
		return nil, err
	}
	if err := r.spool.Remove(); err != nil {
		env.Log.Warn("removing a recording's spool", "dir", r.spool.Dir(), "err", err)
	}
	d := &recordingData{
		Target: r.key.tab, Path: path, Bytes: n, DurationMs: enc.Duration.Milliseconds(),
		FrameCount: enc.Frames, EncodedFrames: enc.EncodedFrames, DroppedFrames: enc.Dropped,
		Width: enc.Width, Height: enc.Height, Codec: r.enc.Codec, Encoder: r.enc.Name,
		EncodeMs: enc.Elapsed.Milliseconds(), StoppedBy: why,
	}
	if why == "cap" {
		d.Note = fmt.Sprintf("the recording stopped itself at its cap (%s: %d bytes, %s)", EnvRecordingMax, limitsBytes(r.limits), limitsDuration(r.limits))
	}
	return d, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// FinishRecordings stops and encodes every recording of env's browsers
// still capturing, and waits for those that ended by themselves to be
// encoded, within ctx: cdpkit calls it before it stops the browser, so a
// recording is never lost to a shutdown. The videos land where
// stop_screen_recording would put them; the log says where.
func FinishRecordings(ctx context.Context, env *Env) {
	recordings.mu.Lock()
	var mine []*recording
	for k, r := range recordings.active {
		if k.m == env.Browsers && r.begun {
			delete(recordings.active, k)
			close(r.stopped)
			mine = append(mine, r)
		}
	}
	var waits []*recording
	for k, r := range recordings.ended {
		if k.m == env.Browsers {
			delete(recordings.ended, k)
			waits = append(waits, r)
		}
	}
	recordings.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range mine {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, err := r.finish(ctx, env, "shutdown", "")
			if err != nil {
				env.Log.Warn("encoding a recording at shutdown", "tab", r.key.tab, "err", err)
				return
			}
			env.Log.Info("a recording was saved at shutdown", "tab", r.key.tab, "path", data.Path)
		}()
	}
	wg.Wait()
	for _, r := range waits {
		select {
		case <-r.done:
		case <-ctx.Done():
			return
		}
	}
}
