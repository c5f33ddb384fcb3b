package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/record"
)

// recordPages are the recording fixtures: a CSS animation that repaints
// every frame, and a still page that paints once.
var recordPages = fstest.MapFS{
	"anim.html": {Data: []byte(`<!doctype html><title>anim</title>
<style>
body { margin: 0; background: #fff }
#box { width: 120px; height: 120px; background: #c33; animation: slide 1s linear infinite alternate }
@keyframes slide { from { transform: translateX(0) rotate(0) } to { transform: translateX(400px) rotate(180deg) } }
</style><div id=box></div>`)},
	"still.html":  {Data: []byte(`<!doctype html><title>still</title><h1>Nothing moves here</h1>`)},
	"still2.html": {Data: []byte(`<!doctype html><title>still 2</title><h1 style="color:blue">Another still page</h1>`)},
}

// needFFmpeg skips a test on a machine without ffmpeg and ffprobe; make
// test installs them (scripts/install-deps.sh).
func needFFmpeg(t *testing.T) {
	t.Helper()
	for _, c := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s is not installed (scripts/install-deps.sh installs it)", c)
		}
	}
}

// probeVideo returns an MP4's duration and video codec by ffprobe.
func probeVideo(t *testing.T, path string) (time.Duration, string) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0",
		"-show_entries", "format=duration:stream=codec_name", "-of", "default=nw=1", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var dur time.Duration
	var codec string
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		switch k {
		case "duration":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("ffprobe duration %q: %v", v, err)
			}
			dur = time.Duration(f * float64(time.Second))
		case "codec_name":
			codec = v
		}
	}
	return dur, codec
}

// span is how long a recording lasted as the test saw it: inner runs from
// start_screen_recording's answer to the stop call, outer from the start
// call to the stop's answer. The recording began and ended somewhere inside
// those calls, however slow a loaded machine made them.
type span struct{ inner, outer time.Duration }

// within10 fails the test unless got lies between 10 % under s.inner and
// 10 % over s.outer: the video lasts as long as the recording, with no
// bound on how long the calls around it took.
func within10(t *testing.T, what string, got time.Duration, s span) {
	t.Helper()
	if float64(got) < 0.9*float64(s.inner) || float64(got) > 1.1*float64(s.outer) {
		t.Errorf("%s = %v, want within 10%% of the recording's span %v–%v", what, got, s.inner, s.outer)
	}
}

// recordFor records the harness's active tab for about d and returns the
// stop result and the span between the two calls.
func recordFor(t *testing.T, h *harness, d time.Duration, during func()) (map[string]any, span) {
	t.Helper()
	called := time.Now()
	h.mustCall(t, "start_screen_recording", `{}`)
	began := time.Now()
	if during != nil {
		during()
	}
	// The recording's length is the content, not a synchronisation.
	if left := d - time.Since(began); left > time.Millisecond {
		h.mustCall(t, "wait_for", fmt.Sprintf(`{"time":%d}`, left.Milliseconds()))
	}
	inner := time.Since(began)
	res := h.mustCall(t, "stop_screen_recording", `{}`)
	return res, span{inner: inner, outer: time.Since(called)}
}

// TestRecordAnimation records a CSS animation for 3 s: the video lasts as
// long as the time between the calls, by ffprobe, and holds the frames.
func TestRecordAnimation(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (a long recording): skipped by -short")
	}
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/anim.html"}`)
	res, wall := recordFor(t, h, 3*time.Second, nil)
	path := res["path"].(string)
	dur, codec := probeVideo(t, path)
	within10(t, "ffprobe duration", dur, wall)
	within10(t, "durationMs", time.Duration(res["durationMs"].(float64))*time.Millisecond, wall)
	if n := res["encodedFrames"].(float64); n <= 0 {
		t.Errorf("encodedFrames = %v, want > 0", n)
	}
	if _, ok := res["frameCount"].(float64); !ok {
		t.Errorf("no frameCount in %v", res)
	}
	if codec != res["codec"] {
		t.Errorf("ffprobe codec %s, result says %v", codec, res["codec"])
	}
	if w, h := res["width"].(float64), res["height"].(float64); int(w)%2 != 0 || int(h)%2 != 0 || w == 0 {
		t.Errorf("size %vx%v, want even and non-zero", w, h)
	}
	if left, _ := filepath.Glob(filepath.Join(h.env.Artifacts.Dir(), "recordings", "spool-*")); len(left) > 0 {
		t.Errorf("spool left after a successful encode: %v", left)
	}
	t.Logf("animation: %v frames in %v wall (%.1f fps captured), %v encoded, encode %vms",
		res["frameCount"], wall.inner.Round(time.Millisecond), res["frameCount"].(float64)/wall.inner.Seconds(), res["encodedFrames"], res["encodeMs"])
}

// TestRecordStill records a still page for 2 s: it paints once or twice,
// yet the video lasts as long as the recording, by the ledger's times.
func TestRecordStill(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/still.html"}`)
	res, wall := recordFor(t, h, 2*time.Second, nil)
	dur, codec := probeVideo(t, res["path"].(string))
	within10(t, "ffprobe duration", dur, wall)
	if n := res["encodedFrames"].(float64); n < 1 {
		t.Errorf("encodedFrames = %v, want at least the first paint", n)
	}
	// H.264 by default: it plays in every browser (issue #39).
	if codec != "h264" || res["codec"] != "h264" {
		t.Errorf("ffprobe codec %s, result codec %v; want h264", codec, res["codec"])
	}
}

// TestRecordCodecs: codec hevc asks for H.265 (smaller; the result says
// so), an unknown codec is INVALID_ARGS before any capture, and the
// encode logs no timestamp warning of ffmpeg's (issue #39).
func TestRecordCodecs(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/anim.html"}`)
	_, err := h.call(t, "start_screen_recording", `{"codec":"vp9"}`)
	wantCode(t, err, InvalidArgs, "vp9")
	// An animation repaints at its own pace: the default encode of its
	// uneven frame times is H.264, and ffmpeg says nothing of timestamps.
	res, _ := recordFor(t, h, time.Second, nil)
	if _, codec := probeVideo(t, res["path"].(string)); codec != "h264" || res["codec"] != "h264" {
		t.Errorf("default recording: ffprobe codec %s, result codec %v; want h264", codec, res["codec"])
	}
	if ff, err := record.Probe(t.Context(), ""); err != nil {
		t.Fatal(err)
	} else if _, ok := ff.Choose(record.CodecHEVC); !ok {
		t.Skip("this ffmpeg has no H.265 encoder")
	}
	h.mustCall(t, "start_screen_recording", `{"codec":"hevc"}`)
	h.mustCall(t, "wait_for", `{"time":500}`)
	res = h.mustCall(t, "stop_screen_recording", `{}`)
	if _, codec := probeVideo(t, res["path"].(string)); codec != "hevc" || res["codec"] != "hevc" {
		t.Errorf("ffprobe codec %s, result codec %v; want hevc", codec, res["codec"])
	}
	if logs := h.allLogs(); strings.Contains(logs, "ffmpeg warned") {
		t.Errorf("the encode warned:\n%s", logs)
	}
}

// TestRecordNavigation navigates to another site while recording: the
// recording goes on, with the next page's frames.
func TestRecordNavigation(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (a long recording): skipped by -short")
	}
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/still.html"}`)
	other := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/still2.html" // another site: maybe another renderer
	// The second page records for 2 s after its navigation returned, however
	// long that took: on a loaded machine the new renderer paints late.
	res, wall := recordFor(t, h, 0, func() {
		h.mustCall(t, "wait_for", `{"time":1000}`)
		h.mustCall(t, "navigate_page", `{"url":"`+other+`"}`)
		h.mustCall(t, "wait_for", `{"time":2000}`)
	})
	if res["stoppedBy"] != "stop" {
		t.Errorf("stoppedBy = %v, want stop: the navigation ended the recording", res["stoppedBy"])
	}
	dur, _ := probeVideo(t, res["path"].(string))
	within10(t, "ffprobe duration", dur, wall)
	if n := res["frameCount"].(float64); n < 2 {
		t.Errorf("frameCount = %v, want the first page's frame and the next page's", n)
	}
}

// TestRecordStates: one recording per tab, and a stop needs one.
func TestRecordStates(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/still.html"}`)
	_, err := h.call(t, "stop_screen_recording", `{}`)
	wantCode(t, err, NoRecording, "not being recorded")
	h.mustCall(t, "start_screen_recording", `{"format":"png","maxWidth":400}`)
	_, err = h.call(t, "start_screen_recording", `{}`)
	wantCode(t, err, RecordingActive, "already being recorded")
	res := h.mustCall(t, "stop_screen_recording", `{"savePath":"mine/flow.mp4"}`)
	if want := filepath.Join(h.env.Artifacts.Dir(), "mine", "flow.mp4"); res["path"] != want {
		t.Errorf("path = %v, want %s", res["path"], want)
	}
	if w := res["width"].(float64); w > 400 {
		t.Errorf("width %v, over maxWidth 400", w)
	}
	_, err = h.call(t, "stop_screen_recording", `{}`)
	wantCode(t, err, NoRecording, "not being recorded")
	_, err = h.call(t, "start_screen_recording", `{"format":"gif"}`)
	wantCode(t, err, InvalidArgs, "gif")
}

// TestRecordTabClosed closes the recorded tab: the recording is finished
// with what it has, and a stop naming the tab returns the playable file.
func TestRecordTabClosed(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/still.html"}`)
	opened := h.mustCall(t, "new_page", `{"url":"`+srv.URL+`/anim.html"}`)
	id := opened["id"].(string)
	h.mustCall(t, "start_screen_recording", `{"target":"`+id+`"}`)
	h.mustCall(t, "wait_for", `{"time":1000}`)
	h.mustCall(t, "close_page", `{"target":"`+id+`"}`)
	waitRecordingEnded(t, h, id)
	res := h.mustCall(t, "stop_screen_recording", `{"target":"`+id+`"}`)
	if res["stoppedBy"] != "tab closed" {
		t.Errorf("stoppedBy = %v, want tab closed", res["stoppedBy"])
	}
	if dur, _ := probeVideo(t, res["path"].(string)); dur <= 0 {
		t.Errorf("ffprobe duration %v, want a playable video", dur)
	}
}

// fakeFFmpeg writes a script that answers the probe as the real ffmpeg
// does and fails every encode.
func fakeFFmpeg(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg is not installed")
	}
	path := filepath.Join(t.TempDir(), "ffmpeg-fails")
	script := "#!/bin/sh\ncase \"$2\" in -version|-encoders) exec " + real + " \"$@\";; esac\necho 'Conversion failed!' >&2\nexit 1\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecordEncoderFails: a failing ffmpeg keeps the spool and names the
// command to re-run.
func TestRecordEncoderFails(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	fake := fakeFFmpeg(t)
	t.Parallel()
	h := newHarness(t, nil)
	h.env.FFmpeg = fake
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/anim.html"}`)
	started := h.mustCall(t, "start_screen_recording", `{}`)
	spool := started["spoolDir"].(string)
	h.mustCall(t, "wait_for", `{"time":500}`)
	_, err := h.call(t, "stop_screen_recording", `{}`)
	te := wantCode(t, err, EncodeFailed, "ffmpeg failed")
	if !strings.Contains(te.Hint, fake+" ") || !strings.Contains(te.Hint, spool) || !strings.Contains(te.Hint, "frames.ffconcat") {
		t.Errorf("hint %q does not name the spool %s and the command", te.Hint, spool)
	}
	for _, name := range []string{"ledger.tsv", "frames.ffconcat", "frame-000000.jpg"} {
		if _, err := os.Stat(filepath.Join(spool, name)); err != nil {
			t.Errorf("spool lost %s: %v", name, err)
		}
	}
	// The command, re-run with the real ffmpeg, encodes the kept frames.
	real, _ := exec.LookPath("ffmpeg")
	cmd := strings.Replace(te.Hint[strings.Index(te.Hint, "re-run: ")+len("re-run: "):], fake, real, 1)
	if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Errorf("re-running %s: %v\n%s", cmd, err, out)
	}
}

// TestRecordNoFFmpeg: without ffmpeg a recording is refused at start,
// before anything is captured.
func TestRecordNoFFmpeg(t *testing.T) {
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.env.FFmpeg = filepath.Join(t.TempDir(), "no-ffmpeg-here")
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/still.html"}`)
	_, err := h.call(t, "start_screen_recording", `{}`)
	te := wantCode(t, err, FFmpegUnavailable, "no-ffmpeg-here")
	if !strings.Contains(te.Hint, "apt install ffmpeg") {
		t.Errorf("hint %q says nothing of installing ffmpeg", te.Hint)
	}
	if _, err := os.Stat(filepath.Join(h.env.Artifacts.Dir(), "recordings")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a spool was made before ffmpeg was found: %v", err)
	}
	_, err = h.call(t, "stop_screen_recording", `{}`)
	wantCode(t, err, NoRecording, "not being recorded")
}

// TestRecordCap: a recording stops itself at its cap (Env.RecordingMax,
// which defaults to CDPKIT_RECORDING_MAX) and the stop reports it.
func TestRecordCap(t *testing.T) {
	needFFmpeg(t)
	srv := browsertest.Server(t, recordPages)
	t.Parallel()
	h := newHarness(t, nil)
	h.env.RecordingMax = "1s"
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/anim.html"}`)
	h.mustCall(t, "start_screen_recording", `{}`)
	h.mustCall(t, "wait_for", `{"time":2000}`)
	res := h.mustCall(t, "stop_screen_recording", `{}`)
	if res["stoppedBy"] != "cap" || !strings.Contains(fmt.Sprint(res["note"]), "cap") {
		t.Errorf("stoppedBy %v, note %v: want the cap reported", res["stoppedBy"], res["note"])
	}
	if d := time.Duration(res["durationMs"].(float64)) * time.Millisecond; d > 1100*time.Millisecond {
		t.Errorf("durationMs = %v, want at most the 1 s cap", d)
	}
}

// TestRecordEncodeOutlivesCall: a stop whose call runs out of time leaves
// the encode running under its own deadline, and the next stop returns
// the video. The ffmpeg reads at a fifth of real time.
func TestRecordEncodeOutlivesCall(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy (a slowed encode): skipped by -short")
	}
	real := needFFmpegPath(t)
	srv := browsertest.Server(t, recordPages)
	slow := filepath.Join(t.TempDir(), "slow-ffmpeg")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec "+real+" -readrate 0.2 \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Parallel()
	h := newHarness(t, nil)
	h.env.FFmpeg = slow
	h.mustCall(t, "navigate_page", `{"url":"`+srv.URL+`/still.html"}`)
	h.mustCall(t, "start_screen_recording", `{}`)
	h.mustCall(t, "wait_for", `{"time":1000}`)
	_, err := h.call(t, "stop_screen_recording", `{"timeout_ms":1000}`)
	wantCode(t, err, Timeout, "still being encoded")
	res := h.mustCall(t, "stop_screen_recording", `{}`)
	if dur, _ := probeVideo(t, res["path"].(string)); dur < 900*time.Millisecond {
		t.Errorf("ffprobe duration %v, want the whole recording", dur)
	}
}

func needFFmpegPath(t *testing.T) string {
	t.Helper()
	needFFmpeg(t)
	p, _ := exec.LookPath("ffmpeg")
	return p
}
