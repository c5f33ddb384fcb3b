package browser

import (
	"errors"
	"math"
	"testing"

	"github.com/chromedp/cdproto/dom"

	"github.com/cdpkit/cdpkit/internal/driver"
)

func TestPlanScale(t *testing.T) {
	const big = math.MaxInt32
	tests := []struct {
		name                  string
		w, h, dpr             float64
		maxPixels, maxW, maxH int
		want                  float64 // 0: just check the bounds
	}{
		{"viewport fits", 1280, 633, 1, driver.DefaultMaxScreenshotPixels, 16384, big, 1},
		{"exactly the limit", 4096, 4096, 1, driver.DefaultMaxScreenshotPixels, 16384, big, 1},
		{"tall page over the pixel limit", 1280, 20000, 1, driver.DefaultMaxScreenshotPixels, 16384, big, 0},
		{"retina doubles the pixels", 1280, 4000, 2, driver.DefaultMaxScreenshotPixels, 16384, big, 0},
		{"small limit", 1280, 20000, 1, 1_000_000, 16384, big, 0},
		{"too wide", 40000, 100, 1, 1 << 30, 16384, big, 16384.0 / 40000},
		{"webp side limit", 1000, 16000, 1.5, 1 << 30, 16383, 16383, 0},
		{"empty region", 0, 0, 1, 100, 16384, big, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := planScale(tt.w, tt.h, tt.dpr, tt.maxPixels, tt.maxW, tt.maxH)
			if s <= 0 || s > 1 {
				t.Fatalf("planScale = %v, want in (0, 1]", s)
			}
			if tt.want != 0 && math.Abs(s-tt.want) > 0.002 {
				t.Errorf("planScale = %v, want %v", s, tt.want)
			}
			if tt.w == 0 {
				return
			}
			w, h := math.Ceil(tt.w*tt.dpr*s), math.Ceil(tt.h*tt.dpr*s)
			if w*h > float64(tt.maxPixels) || w > float64(tt.maxW) || h > float64(tt.maxH) {
				t.Errorf("planScale = %v gives %vx%v, over %d pixels or %dx%d", s, w, h, tt.maxPixels, tt.maxW, tt.maxH)
			}
			// Not needlessly small: within 1% of the tightest bound.
			tight := math.Min(1, math.Min(math.Sqrt(float64(tt.maxPixels)/(tt.w*tt.dpr*tt.h*tt.dpr)),
				math.Min(float64(tt.maxW)/(tt.w*tt.dpr), float64(tt.maxH)/(tt.h*tt.dpr))))
			if s < tight*0.99 {
				t.Errorf("planScale = %v, want about %v", s, tight)
			}
		})
	}
}

func TestPlanCapture(t *testing.T) {
	tests := []struct {
		name             string
		h, dpr, scale    float64
		maxTile          int
		wantTiles        int
		wantTilesAtLeast int
	}{
		{"fits one capture", 16384, 1, 1, 16384, 1, 0},
		{"one pixel over", 16385, 1, 1, 16384, 2, 0},
		{"20000 px page", 20000, 1, 1, 16384, 2, 0},
		{"retina", 20000, 2, 1, 16384, 3, 0},
		{"fractional scale", 20000, 1, 0.8095, 16384, 1, 0},
		{"fractional scale, small tiles", 8000, 1, 0.347, 999, 0, 3},
		{"huge page", 1_000_000, 1, 0.25, 16384, 0, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planCapture(1280, tt.h, tt.dpr, tt.scale, tt.maxTile)
			if p.Scale != tt.scale {
				t.Errorf("Scale = %v, want %v", p.Scale, tt.scale)
			}
			if tt.wantTiles != 0 && len(p.Tiles) != tt.wantTiles {
				t.Errorf("%d tiles, want %d", len(p.Tiles), tt.wantTiles)
			}
			if len(p.Tiles) < tt.wantTilesAtLeast {
				t.Errorf("%d tiles, want at least %d", len(p.Tiles), tt.wantTilesAtLeast)
			}
			px := tt.dpr * tt.scale
			end := 0.0
			for i, tl := range p.Tiles {
				if tl.Y > end {
					t.Errorf("tile %d starts at %v, leaving a gap after %v", i, tl.Y, end)
				}
				if got := math.Ceil(tl.H * px); got > float64(tt.maxTile) {
					t.Errorf("tile %d is %v px tall, over %d", i, got, tt.maxTile)
				}
				if want := int(math.Round(tl.Y * px)); tl.DstY != want {
					t.Errorf("tile %d drawn at row %d, want %d", i, tl.DstY, want)
				}
				end = tl.Y + tl.H
			}
			if end != tt.h {
				t.Errorf("tiles end at %v, want the region's height %v", end, tt.h)
			}
		})
	}
}

func TestQuadBounds(t *testing.T) {
	tests := []struct {
		q    dom.Quad
		want rect
	}{
		{dom.Quad{37, 236, 347, 236, 347, 396, 37, 396}, rect{37, 236, 310, 160}},
		// Rotated 45°: the bounds enclose every corner.
		{dom.Quad{50, 0, 100, 50, 50, 100, 0, 50}, rect{0, 0, 100, 100}},
	}
	for _, tt := range tests {
		if got := quadBounds(tt.q); got != tt.want {
			t.Errorf("quadBounds(%v) = %+v, want %+v", tt.q, got, tt.want)
		}
	}
}

func TestScreenshotOptionsNormalize(t *testing.T) {
	tests := []struct {
		in      driver.ScreenshotOptions
		want    driver.ScreenshotOptions
		wantErr bool
	}{
		{in: driver.ScreenshotOptions{}, want: driver.ScreenshotOptions{Format: "png", MaxPixels: driver.DefaultMaxScreenshotPixels, MaxBytes: driver.DefaultMaxImageBytes, MaxTile: driver.MaxCaptureHeight}},
		{in: driver.ScreenshotOptions{Format: "jpeg"}, want: driver.ScreenshotOptions{Format: "jpeg", Quality: 80, MaxPixels: driver.DefaultMaxScreenshotPixels, MaxBytes: driver.DefaultMaxImageBytes, MaxTile: driver.MaxCaptureHeight}},
		{in: driver.ScreenshotOptions{Format: "webp", Quality: 30, MaxPixels: 10, MaxBytes: 20}, want: driver.ScreenshotOptions{Format: "webp", Quality: 30, MaxPixels: 10, MaxBytes: 20, MaxTile: driver.MaxCaptureHeight}},
		{in: driver.ScreenshotOptions{Format: "gif"}, wantErr: true},
		{in: driver.ScreenshotOptions{Format: "jpg"}, wantErr: true},
		{in: driver.ScreenshotOptions{Quality: 50}, wantErr: true},
		{in: driver.ScreenshotOptions{Format: "jpeg", Quality: -1}, wantErr: true},
		{in: driver.ScreenshotOptions{Format: "jpeg", Quality: 101}, wantErr: true},
		{in: driver.ScreenshotOptions{Ref: "e1", Selector: "p"}, wantErr: true},
		{in: driver.ScreenshotOptions{FullPage: true, Selector: "p"}, wantErr: true},
		{in: driver.ScreenshotOptions{MaxBytes: -1}, wantErr: true},
	}
	for _, tt := range tests {
		got := tt.in
		err := got.Normalize()
		if tt.wantErr {
			if !errors.Is(err, driver.ErrInvalidArgument) {
				t.Errorf("normalize(%+v) error = %v, want ErrInvalidArgument", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("normalize(%+v) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}
