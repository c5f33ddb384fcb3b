// Package record turns a tab's screencast frames into a video: it spools
// frames to disk with a ledger of when each arrived, plans a variable
// frame rate from that ledger, and encodes with the ffmpeg on the machine.
// It is pure Go around os/exec and knows nothing of CDP or MCP.
package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Errors callers branch on.
var (
	// ErrNoFFmpeg means no usable ffmpeg was found: not on PATH, not at
	// CDPKIT_FFMPEG, or it lists no H.265/H.264 encoder.
	ErrNoFFmpeg = errors.New("record: ffmpeg unavailable")
	// ErrCap means the spool reached its cap (bytes or duration); the
	// frame that would cross it was not kept. It comes as a *CapError.
	ErrCap = errors.New("record: recording cap reached")
	// ErrEncode means ffmpeg failed; it comes as an *EncodeError, which
	// names the spool that was kept and the command to re-run.
	ErrEncode = errors.New("record: encoding failed")
	// ErrNoFrames means the spool holds no frame to encode.
	ErrNoFrames = errors.New("record: no frames captured")
)

// Default caps of a recording, when CDPKIT_RECORDING_MAX does not say.
const (
	DefaultMaxBytes    = 1 << 30
	DefaultMaxDuration = 30 * time.Minute
)

// Limits cap one recording's spool.
type Limits struct {
	Bytes    int64         // spooled frame bytes; 0 means DefaultMaxBytes
	Duration time.Duration // time since the start; 0 means DefaultMaxDuration
}

func (l Limits) bytes() int64 {
	if l.Bytes <= 0 {
		return DefaultMaxBytes
	}
	return l.Bytes
}

func (l Limits) duration() time.Duration {
	if l.Duration <= 0 {
		return DefaultMaxDuration
	}
	return l.Duration
}

// ParseLimits reads CDPKIT_RECORDING_MAX: comma-separated sizes and
// durations in any order, such as "500MB,10m", "2GiB" or "90s". A size
// takes B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB; a duration is
// Go's (s, m, h). What is not given keeps its default. "" is the defaults.
func ParseLimits(s string) (Limits, error) {
	var l Limits
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if n, ok := parseSize(part); ok {
			l.Bytes = n
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil || d <= 0 {
			return Limits{}, fmt.Errorf("record: CDPKIT_RECORDING_MAX %q: want sizes and durations such as 500MB,10m", s)
		}
		l.Duration = d
	}
	return l, nil
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
}

func parseSize(s string) (int64, bool) {
	u := strings.ToUpper(s)
	for _, su := range sizeUnits {
		if num, ok := strings.CutSuffix(u, su.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || f <= 0 {
				return 0, false
			}
			return int64(f * float64(su.mult)), true
		}
	}
	return 0, false
}

// CapError says which cap a recording reached.
type CapError struct {
	Bytes   int64         // bytes spooled when it stopped
	Elapsed time.Duration // time since the start when it stopped
	Limits  Limits
	ByBytes bool // the byte cap, not the duration cap
}

func (e *CapError) Error() string {
	if e.ByBytes {
		return fmt.Sprintf("record: the spool reached its %d-byte cap", e.Limits.bytes())
	}
	return fmt.Sprintf("record: the recording reached its %s cap", e.Limits.duration())
}

func (e *CapError) Unwrap() error { return ErrCap }
