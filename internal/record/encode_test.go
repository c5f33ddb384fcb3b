package record

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestEncodeCodecs encodes a spool of frames painted at uneven times, as
// a screencast sends them: by default to H.264 (which every browser and
// player shows), with "hevc" to H.265 where ffmpeg has an encoder for it;
// ffprobe reads the codec the result reports, and ffmpeg, asked for its
// warnings, prints none (no non-monotonic timestamps) (issue #39).
func TestEncodeCodecs(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("no ffprobe")
	}
	f, err := Probe(t.Context(), "")
	if err != nil {
		t.Skipf("no ffmpeg: %v", err)
	}
	for _, codec := range []string{"", "h264", "hevc"} {
		t.Run("codec="+codec, func(t *testing.T) {
			enc, ok := f.Choose(codec)
			if !ok {
				t.Skipf("%s has no %s encoder", f.Path, codec)
			}
			want := codec
			if want == "" {
				want = "h264"
			}
			if enc.Codec != want {
				t.Fatalf("Choose(%q) = %+v, want a %s encoder", codec, enc, want)
			}
			dir := t.TempDir() + "/spool"
			start := time.Now()
			s, err := NewSpool(dir, "jpeg", start, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			// Uneven gaps, two frames within a ms and one out of order.
			for i, ms := range []int{0, 17, 33, 33, 70, 61, 250, 251, 900} {
				var buf bytes.Buffer
				img := image.NewRGBA(image.Rect(0, 0, 320, 200))
				for p := range img.Pix {
					img.Pix[p] = uint8(i * 25)
				}
				img.Set(i, i, color.White)
				if err := jpeg.Encode(&buf, img, nil); err != nil {
					t.Fatal(err)
				}
				if err := s.Add(buf.Bytes(), start.Add(time.Duration(ms)*time.Millisecond)); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			got, err := f.Encode(t.Context(), dir, enc, start, start.Add(1200*time.Millisecond), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Warnings != "" {
				t.Errorf("ffmpeg warned while encoding:\n%s", got.Warnings)
			}
			out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name", "-of", "default=nw=1:nk=1", got.Path).Output()
			if err != nil {
				t.Fatal(err)
			}
			if probed := strings.TrimSpace(string(out)); probed != want {
				t.Errorf("ffprobe codec %s, want %s", probed, want)
			}
		})
	}
}
