package record

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ManifestName is the generated ffconcat file's name in a spool dir.
const ManifestName = "frames.ffconcat"

// Plan is how a ledger becomes a variable-frame-rate video: each kept
// frame shows from its own paint time until the next kept frame's, and the
// last until the stop. Times are snapped to the muxer's grid; frames that
// land in a slot already taken are coalesced away (the first one stays).
type Plan struct {
	Manifest string        // ffconcat text
	Frames   int           // frames in the manifest (not counting the repeat of the last)
	Dropped  int           // captured frames coalesced away
	Duration time.Duration // the video's length: start to stop, on the grid
	Width    int           // the first frame's size, which the video keeps
	Height   int
}

// PlanFrames plans entries (in any order) recorded from start to stop on
// a grid (1 ms when ffmpeg takes a per-file frame rate, else the image2
// demuxer's 40 ms). The video starts at start: the first frame shows from
// then, since the browser paints it as the screencast starts.
func PlanFrames(entries []Entry, start, stop time.Time, grid time.Duration, perFileRate bool) (Plan, error) {
	if len(entries) == 0 {
		return Plan{}, ErrNoFrames
	}
	if grid <= 0 {
		grid = time.Millisecond
	}
	// The browser may send frames out of paint order (several are in
	// flight at once): the video follows paint times.
	entries = slices.Clone(entries)
	slices.SortStableFunc(entries, func(a, b Entry) int { return a.At.Compare(b.At) })
	slot := func(t time.Time) int64 {
		d := t.Sub(start)
		if d < 0 {
			return 0
		}
		return int64((d + grid/2) / grid)
	}
	type kept struct {
		file string
		slot int64
	}
	frames := make([]kept, 0, len(entries))
	for i, e := range entries {
		s := slot(e.At)
		if i == 0 {
			s = 0
		}
		if n := len(frames); n > 0 && s <= frames[n-1].slot {
			continue // the slot is taken (or the clock stepped back)
		}
		frames = append(frames, kept{e.File, s})
	}
	end := max(slot(stop), frames[len(frames)-1].slot+1)

	var b strings.Builder
	b.WriteString("ffconcat version 1.0\n")
	// A per-file frame rate makes image2 time each frame in ms, instead of
	// snapping it to its default 25 fps grid.
	rate := ""
	if perFileRate {
		rate = fmt.Sprintf("option framerate %d\n", time.Second/grid)
	}
	secs := func(slots int64) string {
		return fmt.Sprintf("%.6f", (time.Duration(slots) * grid).Seconds())
	}
	for i, f := range frames {
		next := end
		if i+1 < len(frames) {
			next = frames[i+1].slot
		}
		fmt.Fprintf(&b, "file '%s'\n%sduration %s\n", f.file, rate, secs(next-f.slot))
	}
	// The concat demuxer ignores the last file's duration unless another
	// file follows: repeating the last frame makes it last until the stop.
	fmt.Fprintf(&b, "file '%s'\n%s", frames[len(frames)-1].file, rate)
	return Plan{
		Manifest: b.String(), Frames: len(frames), Dropped: len(entries) - len(frames),
		Duration: time.Duration(end) * grid, Width: entries[0].Width, Height: entries[0].Height,
	}, nil
}

// evenSize rounds a frame size down to even numbers, as yuv420p needs,
// and to at least 2.
func evenSize(w, h int) (int, int) {
	return max(2, w&^1), max(2, h&^1)
}
