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

// ladder is the encoders tried, best first: H.265 before H.264, the
// hardware ones where they need no device arguments (macOS), then the
// software ones any build may have.
func ladder(goos string) []Encoder {
	var l []Encoder
	if goos == "darwin" {
		l = append(l, Encoder{"hevc_videotoolbox", "hevc"}, Encoder{"h264_videotoolbox", "h264"})
	}
	if goos == "windows" {
		l = append(l, Encoder{"hevc_mf", "hevc"}, Encoder{"h264_mf", "h264"})
	}
	return append(l, Encoder{"libx265", "hevc"}, Encoder{"libx264", "h264"}, Encoder{"libopenh264", "h264"}, Encoder{"mpeg4", "mpeg4"})
}

// FFmpeg is a probed ffmpeg: where it is, its version's abilities, and
// the encoder chosen from what it lists.
type FFmpeg struct {
	Path    string
	Version string  // as `ffmpeg -version` says, such as "5.1.9-0+deb12u1"
	Encoder Encoder // chosen once, from `ffmpeg -encoders`
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
	probed  = map[string]*FFmpeg{} // guarded by probeMu; by path, so an encoder is chosen once per binary
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
	enc, ok := chooseEncoder(out, runtime.GOOS)
	if !ok {
		return nil, &UnavailableError{Path: path, Reason: "it has no H.265, H.264 or MPEG-4 encoder"}
	}
	f.Encoder = enc
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

// chooseEncoder picks the first encoder of the ladder that `ffmpeg
// -encoders` lists. Only the name column counts: a description may
// mention another encoder's name (libx264rgb's mentions libx264).
func chooseEncoder(list []byte, goos string) (Encoder, bool) {
	names := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// " V....D libx264  description": flags, then the name.
		if len(fields) >= 2 && len(fields[0]) == 6 && fields[0][0] == 'V' {
			names[fields[1]] = true
		}
	}
	for _, e := range ladder(goos) {
		if names[e.Name] {
			return e, true
		}
	}
	return Encoder{}, false
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
