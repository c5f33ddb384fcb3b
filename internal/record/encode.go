package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// VideoName is the encoded file's name in a spool dir, before the caller
// moves it to where it belongs.
const VideoName = "video.mp4"

// Encoded is what an encode produced.
type Encoded struct {
	Path          string        // the MP4, in the spool dir
	Frames        int           // frames captured (the ledger's lines)
	EncodedFrames int           // frames ffmpeg wrote, by its own count
	Dropped       int           // captured frames that did not reach the video
	Duration      time.Duration // the planned length
	Width, Height int           // the video's size (even)
	Elapsed       time.Duration // how long ffmpeg ran
	Encoder       Encoder       // what wrote it
	// Warnings are ffmpeg's warnings about timestamps (non-monotonic
	// DTS and the like), "" for a clean encode. Its other warnings (a
	// JPEG's range, a missing end marker) say nothing about the video's
	// timing and are left out.
	Warnings string
}

// EncodeError is a failed encode. The spool is kept; Command re-runs it.
type EncodeError struct {
	Spool   string // the spool dir, kept
	Command string // the ffmpeg command line, shell-quoted
	Stderr  string // the tail of ffmpeg's stderr
	Err     error
}

func (e *EncodeError) Error() string {
	msg := fmt.Sprintf("record: ffmpeg failed (%v)", e.Err)
	if e.Stderr != "" {
		msg += ": " + lastLine(e.Stderr)
	}
	return msg
}

func (e *EncodeError) Unwrap() []error { return []error{ErrEncode, e.Err} }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// Progress is an encode's progress: frames written and video time done.
type Progress struct {
	Frames int
	Done   time.Duration
	Total  time.Duration
}

// Deadline is how long an encode of a video d long may take on its own:
// a minute, plus twice the video's length.
func Deadline(d time.Duration) time.Duration { return time.Minute + 2*d }

// Encode plans the spool's ledger from start to stop and encodes it to
// VideoName in the spool dir. ctx bounds the encode (ffmpeg is killed when
// it ends), and so does Deadline. progress, if set, is called from
// ffmpeg's progress reports. On failure the spool and manifest are kept
// and the error is an *EncodeError naming the command to re-run; the
// caller removes the spool after a success.
func (f *FFmpeg) Encode(ctx context.Context, dir string, enc Encoder, start, stop time.Time, progress func(Progress)) (*Encoded, error) {
	entries, err := ReadLedger(dir)
	if err != nil {
		return nil, err
	}
	grid := 40 * time.Millisecond
	if f.perFileRate {
		grid = time.Millisecond
	}
	plan, err := PlanFrames(entries, start, stop, grid, f.perFileRate)
	if err != nil {
		return nil, err
	}
	manifest := filepath.Join(dir, ManifestName)
	if err := os.WriteFile(manifest, []byte(plan.Manifest), 0o600); err != nil {
		return nil, fmt.Errorf("record: writing the manifest: %w", err)
	}
	w, h := evenSize(plan.Width, plan.Height)
	out := filepath.Join(dir, VideoName)
	args := f.Args(manifest, out, w, h, enc)
	ctx, cancel := context.WithTimeout(ctx, Deadline(plan.Duration))
	defer cancel()
	encoded := 0
	began := time.Now()
	_, stderr, err := run(ctx, f.Path, func(line string) {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return
		}
		switch k {
		case "frame":
			encoded, _ = strconv.Atoi(strings.TrimSpace(v))
		case "out_time_us":
			if us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && progress != nil {
				progress(Progress{Frames: encoded, Done: time.Duration(us) * time.Microsecond, Total: plan.Duration})
			}
		}
	}, args...)
	if err == nil {
		if fi, serr := os.Stat(out); serr != nil || fi.Size() == 0 {
			err = errors.New("it wrote no video")
		}
	}
	if err != nil {
		os.Remove(out)
		return nil, &EncodeError{Spool: dir, Command: Command(f.Path, args), Stderr: stderr, Err: err}
	}
	return &Encoded{
		// ffmpeg's count includes the repeat of the last frame.
		Path: out, Frames: len(entries), EncodedFrames: min(encoded, plan.Frames), Dropped: len(entries) - min(encoded, plan.Frames),
		Duration: plan.Duration, Width: w, Height: h, Elapsed: time.Since(began), Encoder: enc, Warnings: timestampWarnings(stderr),
	}, nil
}

// timestampWarnings returns the lines of ffmpeg's stderr that warn about
// timestamps.
func timestampWarnings(stderr string) string {
	var b strings.Builder
	for l := range strings.Lines(stderr) {
		ll := strings.ToLower(l)
		if strings.Contains(ll, "dts") || strings.Contains(ll, "pts") || strings.Contains(ll, "timestamp") || strings.Contains(ll, "monoton") {
			b.WriteString(l)
		}
	}
	return strings.TrimSpace(b.String())
}

// Args are the ffmpeg arguments that encode manifest to out at w × h
// (even) with enc: letterboxed to the first frame's size should the
// viewport change, yuv420p, variable frame rate, faststart, hvc1-tagged
// for HEVC. ffmpeg prints warnings too, which a clean encode has none of.
func (f *FFmpeg) Args(manifest, out string, w, h int, enc Encoder) []string {
	vf := fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease,pad=%d:%d:(ow-iw)/2:(oh-ih)/2,format=yuv420p", w, h, w, h)
	args := []string{"-hide_banner", "-nostdin", "-y", "-loglevel", "warning", "-nostats", "-progress", "pipe:1",
		"-f", "concat", "-safe", "0", "-i", manifest, "-vf", vf}
	if f.fpsMode {
		args = append(args, "-fps_mode", "vfr")
	} else {
		args = append(args, "-vsync", "vfr")
	}
	args = append(args, "-c:v", enc.Name)
	switch enc.Name {
	case "libx264":
		args = append(args, "-preset", "veryfast", "-crf", "23")
	case "libx265":
		args = append(args, "-preset", "ultrafast", "-crf", "28", "-x265-params", "log-level=error")
	}
	if enc.Codec == CodecHEVC {
		args = append(args, "-tag:v", "hvc1")
	}
	return append(args, "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-an", out)
}

// Command is a shell-quoted command line, to re-run by hand.
func Command(path string, args []string) string {
	q := make([]string, 0, len(args)+1)
	for _, a := range append([]string{path}, args...) {
		q = append(q, shellQuote(a))
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
