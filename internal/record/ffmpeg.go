package record

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// EnvFFmpeg names the ffmpeg to use instead of the one on PATH.
const EnvFFmpeg = "CDPKIT_FFMPEG"

// Encoder is the video encoder a recording is written with.
type Encoder struct {
	Name  string // ffmpeg's name, such as "libx265"
	Codec string // "hevc" or "h264" (or "mpeg4" as a last resort)
}

// ladder is the encoders cdpkit can use, by codec, best first: the
// hardware ones where they need no device arguments (macOS, Windows), then
// the software ones any build may have. H.264 is the default codec, since
// every browser and player shows it; H.265 is smaller but Chromium and
// Firefox on Linux do not play it.
func ladder(goos string) []Encoder {
	var l []Encoder
	if goos == "darwin" {
		l = append(l, Encoder{"h264_videotoolbox", "h264"}, Encoder{"hevc_videotoolbox", "hevc"})
	}
	if goos == "windows" {
		l = append(l, Encoder{"h264_mf", "h264"}, Encoder{"hevc_mf", "hevc"})
	}
	return append(l, Encoder{"libx264", "h264"}, Encoder{"libopenh264", "h264"}, Encoder{"libx265", "hevc"}, Encoder{"mpeg4", "mpeg4"})
}

// Codecs a recording may ask for; "" is DefaultCodec.
const (
	DefaultCodec = "h264"
	CodecHEVC    = "hevc"
)

// FFmpeg is a probed ffmpeg: where it is, its version's abilities, and
// the encoder chosen from what it lists.
type FFmpeg struct {
	Path    string
	Version string // as `ffmpeg -version` says, such as "5.1.9-0+deb12u1"
	// Encoders are those of the ladder that `ffmpeg -encoders` lists, in
	// the ladder's order; never empty.
	Encoders []Encoder
	// perFileRate: the concat demuxer takes "option framerate" (ffmpeg 5
	// and later), so frames are timed to the ms rather than 40 ms.
	perFileRate bool
	// fpsMode: -fps_mode exists (5.1 and later); else -vsync.
	fpsMode bool
}

// UnavailableError says why no ffmpeg can be used.
type UnavailableError struct {
	Path   string // "" when none was found
	Reason string
}

func (e *UnavailableError) Error() string {
	if e.Path == "" {
		return "record: " + e.Reason
	}
	return "record: " + e.Path + ": " + e.Reason
}

func (e *UnavailableError) Unwrap() error { return ErrNoFFmpeg }

var (
	probeMu sync.Mutex
	probed  = map[string]*FFmpeg{} // guarded by probeMu; by path, so each binary is probed once
)

// Find returns the ffmpeg to use: path if it is not "", else
// $CDPKIT_FFMPEG, else ffmpeg on PATH.
func Find(path string) (string, error) {
	reason := "the configured ffmpeg names no file"
	if path == "" {
		path, reason = os.Getenv(EnvFFmpeg), EnvFFmpeg+" names no file"
	}
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", &UnavailableError{Path: path, Reason: reason}
		}
		return path, nil
	}
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", &UnavailableError{Reason: "ffmpeg is not on PATH"}
	}
	return p, nil
}

// Probe finds ffmpeg (path, as [Find] takes it) and asks it, once per
// binary, for its version and encoders. ctx bounds the probe. Errors wrap
// ErrNoFFmpeg.
func Probe(ctx context.Context, path string) (*FFmpeg, error) {
	path, err := Find(path)
	if err != nil {
		return nil, err
	}
	probeMu.Lock()
	defer probeMu.Unlock()
	if f := probed[path]; f != nil {
		return f, nil
	}
	out, _, err := run(ctx, path, nil, "-hide_banner", "-version")
	if err != nil {
		return nil, &UnavailableError{Path: path, Reason: "it does not run: " + err.Error()}
	}
	f := &FFmpeg{Path: path}
	f.Version, f.perFileRate, f.fpsMode = parseVersion(out)
	out, _, err = run(ctx, path, nil, "-hide_banner", "-encoders")
	if err != nil {
		return nil, &UnavailableError{Path: path, Reason: "listing its encoders failed: " + err.Error()}
	}
	f.Encoders = listEncoders(out, runtime.GOOS)
	if len(f.Encoders) == 0 {
		return nil, &UnavailableError{Path: path, Reason: "it has no H.264, H.265 or MPEG-4 encoder"}
	}
	probed[path] = f
	return f, nil
}

var versionRE = regexp.MustCompile(`(?m)^ffmpeg version n?(\S+)`)

// parseVersion reads `ffmpeg -version`. A build not numbered like a
// release (a git snapshot) is taken as new.
func parseVersion(out []byte) (version string, perFileRate, fpsMode bool) {
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return "", true, true
	}
	version = string(m[1])
	parts := strings.SplitN(version, ".", 3)
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return version, true, true
	}
	minor := 0
	if len(parts) > 1 {
		minor, _ = strconv.Atoi(strings.TrimLeftFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	}
	return version, major >= 5, major > 5 || major == 5 && minor >= 1
}

// Choose returns the best encoder f has for codec ("" is DefaultCodec).
// For the default codec it falls back to any encoder f has (the result
// says which codec it wrote); a codec asked for by name is that codec or
// nothing.
func (f *FFmpeg) Choose(codec string) (Encoder, bool) {
	want := codec
	if want == "" {
		want = DefaultCodec
	}
	for _, e := range f.Encoders {
		if e.Codec == want {
			return e, true
		}
	}
	if codec == "" && len(f.Encoders) > 0 {
		return f.Encoders[0], true
	}
	return Encoder{}, false
}

// listEncoders returns the encoders of the ladder that `ffmpeg -encoders`
// lists, in the ladder's order. Only the name column counts: a
// description may mention another encoder's name (libx264rgb's mentions
// libx264).
func listEncoders(list []byte, goos string) []Encoder {
	names := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// " V....D libx264  description": flags, then the name.
		if len(fields) >= 2 && len(fields[0]) == 6 && fields[0][0] == 'V' {
			names[fields[1]] = true
		}
	}
	var out []Encoder
	for _, e := range ladder(goos) {
		if names[e.Name] {
			out = append(out, e)
		}
	}
	return out
}

// run runs ffmpeg as a process tree that ends with ctx (and with this
// process, however it dies), passing its stdout lines to line if set.
// It returns the stdout (when line is nil) and the stderr's tail.
func run(ctx context.Context, path string, line func(string), args ...string) (stdout []byte, stderr string, err error) {
	cmd := exec.Command(path, args...)
	var out bytes.Buffer
	tail := &sysproc.Tail{Max: 2048}
	cmd.Stderr = tail
	var pipe *bufio.Scanner
	if line == nil {
		cmd.Stdout = &out
	} else {
		r, err := cmd.StdoutPipe()
		if err != nil {
			return nil, "", err
		}
		pipe = bufio.NewScanner(r)
	}
	tree := sysproc.NewTree(cmd)
	if err := tree.Start(); err != nil {
		return nil, "", err
	}
	defer tree.Release()
	stop := context.AfterFunc(ctx, func() { tree.Kill() })
	defer stop()
	if pipe != nil {
		for pipe.Scan() {
			line(pipe.Text())
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		return out.Bytes(), tail.String(), fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return out.Bytes(), tail.String(), err
}
