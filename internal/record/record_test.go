package record

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseLimits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Limits
		bad  bool
	}{
		{in: "", want: Limits{}},
		{in: "500MB,10m", want: Limits{Bytes: 500e6, Duration: 10 * time.Minute}},
		{in: " 90s , 2GiB ", want: Limits{Bytes: 2 << 30, Duration: 90 * time.Second}},
		{in: "1.5kb", want: Limits{Bytes: 1500}},
		{in: "lots", bad: true},
		{in: "-5m", bad: true},
	} {
		got, err := ParseLimits(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("ParseLimits(%q) error %v, want error %v", tc.in, err, tc.bad)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseLimits(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestPlanFrames(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	e := func(name string, ms int) Entry { return Entry{File: name, At: at(ms), Width: 101, Height: 51} }
	t.Run("out of order, last frame until stop", func(t *testing.T) {
		p, err := PlanFrames([]Entry{e("a", 40), e("c", 90), e("b", 60)}, t0, at(1000), time.Millisecond, true)
		if err != nil {
			t.Fatal(err)
		}
		want := "ffconcat version 1.0\n" +
			"file 'a'\noption framerate 1000\nduration 0.060000\n" + // from the start: the first frame covers it
			"file 'b'\noption framerate 1000\nduration 0.030000\n" +
			"file 'c'\noption framerate 1000\nduration 0.910000\n" +
			"file 'c'\noption framerate 1000\n"
		if diff := cmp.Diff(want, p.Manifest); diff != "" {
			t.Errorf("manifest (-want +got):\n%s", diff)
		}
		if p.Frames != 3 || p.Dropped != 0 || p.Duration != time.Second || p.Width != 101 {
			t.Errorf("plan %+v", p)
		}
	})
	t.Run("40 ms grid coalesces", func(t *testing.T) {
		p, err := PlanFrames([]Entry{e("a", 0), e("b", 10), e("c", 30), e("d", 100)}, t0, at(200), 40*time.Millisecond, false)
		if err != nil {
			t.Fatal(err)
		}
		// b rounds to slot 0 (taken), c to slot 1, d to slot 3 (100 ms → 2.5 → 3).
		want := "ffconcat version 1.0\nfile 'a'\nduration 0.040000\nfile 'c'\nduration 0.080000\nfile 'd'\nduration 0.080000\nfile 'd'\n"
		if diff := cmp.Diff(want, p.Manifest); diff != "" {
			t.Errorf("manifest (-want +got):\n%s", diff)
		}
		if p.Frames != 3 || p.Dropped != 1 || p.Duration != 200*time.Millisecond {
			t.Errorf("plan %+v", p)
		}
	})
	t.Run("stop before the last frame", func(t *testing.T) {
		p, err := PlanFrames([]Entry{e("a", 0), e("b", 500)}, t0, at(100), time.Millisecond, true)
		if err != nil {
			t.Fatal(err)
		}
		if p.Duration != 501*time.Millisecond {
			t.Errorf("duration %v, want the last frame shown for one slot", p.Duration)
		}
	})
	if _, err := PlanFrames(nil, t0, at(10), time.Millisecond, true); !errors.Is(err, ErrNoFrames) {
		t.Errorf("no frames: error %v, want ErrNoFrames", err)
	}
}

func TestChooseEncoder(t *testing.T) {
	list := `Encoders:
 V..... = Video
 ------
 V....D libx264rgb           libx264 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 RGB (codec h264)
 V....D mpeg4                MPEG-4 part 2
 A....D aac                  AAC (Advanced Audio Coding)
`
	choose := func(list, goos, codec string) (Encoder, bool) {
		return (&FFmpeg{Encoders: listEncoders([]byte(list), goos)}).Choose(codec)
	}
	if got, ok := choose(list, "linux", ""); !ok || got.Name != "mpeg4" {
		t.Errorf("Choose = %+v, %v; want mpeg4, never libx264rgb", got, ok)
	}
	if got, ok := choose(list, "linux", "hevc"); ok {
		t.Errorf("Choose(hevc) = %+v with no H.265 encoder", got)
	}
	list += " V....D libx265              libx265 H.265 / HEVC (codec hevc)\n V....D libx264              libx264 H.264\n"
	if got, _ := choose(list, "linux", ""); got != (Encoder{"libx264", "h264"}) {
		t.Errorf("Choose = %+v, want libx264 (H.264 by default)", got)
	}
	if got, _ := choose(list, "linux", "hevc"); got != (Encoder{"libx265", "hevc"}) {
		t.Errorf("Choose(hevc) = %+v, want libx265", got)
	}
	list += " V....D hevc_videotoolbox    VideoToolbox H.265 Encoder (codec hevc)\n"
	if got, _ := choose(list, "darwin", "hevc"); got.Name != "hevc_videotoolbox" {
		t.Errorf("darwin: Choose(hevc) = %+v, want hevc_videotoolbox", got)
	}
	if got := listEncoders([]byte(" A....D aac  AAC\n"), "linux"); len(got) != 0 {
		t.Errorf("an audio-only ffmpeg has video encoders %v", got)
	}
}

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		out           string
		rate, fpsMode bool
	}{
		{"ffmpeg version 5.1.9-0+deb12u1 Copyright", true, true},
		{"ffmpeg version 4.4.2-0ubuntu0.22.04.1 Copyright", false, false},
		{"ffmpeg version 5.0.1 Copyright", true, false},
		{"ffmpeg version n7.1 Copyright", true, true},
		{"ffmpeg version N-113000-gabc Copyright", true, true},
	} {
		_, rate, fps := parseVersion([]byte(tc.out))
		if rate != tc.rate || fps != tc.fpsMode {
			t.Errorf("%q: perFileRate %v fpsMode %v, want %v %v", tc.out, rate, fps, tc.rate, tc.fpsMode)
		}
	}
}

func TestSpoolCapAndLedger(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 6)), nil); err != nil {
		t.Fatal(err)
	}
	frame := buf.Bytes()
	start := time.Now()
	dir := t.TempDir() + "/spool"
	s, err := NewSpool(dir, "jpeg", start, Limits{Bytes: int64(2*len(frame) + 1), Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := s.Add(frame, start.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	err = s.Add(frame, start.Add(2*time.Second))
	var ce *CapError
	if !errors.As(err, &ce) || !ce.ByBytes || !errors.Is(err, ErrCap) {
		t.Fatalf("third frame: %v, want the byte cap", err)
	}
	if err := s.Add(frame, start.Add(3*time.Second)); !errors.Is(err, ErrCap) {
		t.Errorf("after the cap: %v, want ErrCap again", err)
	}
	s.Close()
	entries, err := ReadLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{File: "frame-000000.jpg", At: time.Unix(0, start.UnixNano()), Size: int64(len(frame)), Width: 8, Height: 6},
		{File: "frame-000001.jpg", At: time.Unix(0, start.Add(time.Second).UnixNano()), Size: int64(len(frame)), Width: 8, Height: 6},
	}
	if diff := cmp.Diff(want, entries); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	s2, _ := NewSpool(t.TempDir()+"/s2", "jpeg", start, Limits{Duration: time.Second})
	if err := s2.Add(frame, start.Add(2*time.Second)); !errors.As(err, &ce) || ce.ByBytes {
		t.Errorf("late frame: %v, want the duration cap", err)
	}
}

func TestCommandQuoting(t *testing.T) {
	got := Command("/usr/bin/ffmpeg", []string{"-i", "/tmp/a b/frames.ffconcat", "-vf", "scale=2:2,pad=(ow-iw)/2", "it's"})
	want := `/usr/bin/ffmpeg -i '/tmp/a b/frames.ffconcat' -vf 'scale=2:2,pad=(ow-iw)/2' 'it'\''s'`
	if got != want {
		t.Errorf("Command = %s, want %s", got, want)
	}
	if !strings.Contains(Command("ffmpeg", nil), "ffmpeg") {
		t.Error("no program")
	}
}
