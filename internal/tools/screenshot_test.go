package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestTakeScreenshot runs take_screenshot against one real browser (this
// package's only one) on the browser package's screenshot fixtures.
func TestTakeScreenshot(t *testing.T) {
	srv := browsertest.Server(t, os.DirFS("../browser/testdata/screenshot"))
	t.Parallel()
	h := newHarness(t, nil)
	env := h.env

	var tool Tool
	for _, tl := range All() {
		if tl.Name == "take_screenshot" {
			tool = tl
		}
	}
	open := func(t *testing.T, page string) {
		t.Helper()
		if _, err := h.tab(t, "").Navigate(t.Context(), srv.URL+"/"+page); err != nil {
			t.Fatalf("Navigate: %v", err)
		}
	}
	call := func(t *testing.T, env *Env, args string) (screenshotData, *Result) {
		t.Helper()
		start := time.Now()
		res, err := tool.Call(t.Context(), env, json.RawMessage(args))
		if err != nil {
			t.Fatalf("take_screenshot %s: %v", args, err)
		}
		d := res.Data.(screenshotData)
		t.Logf("take_screenshot %s: %+v in %v", args, d, time.Since(start).Round(time.Millisecond))
		if res.Image == nil {
			t.Fatal("no inline image")
		}
		saved, err := os.ReadFile(d.Path)
		if err != nil {
			t.Fatalf("reading the saved file: %v", err)
		}
		if rel, err := filepath.Rel(env.Artifacts.Dir(), d.Path); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("saved to %s, outside the artifact dir %s", d.Path, env.Artifacts.Dir())
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(saved))
		if err != nil || format != d.Format || cfg.Width != d.Width || cfg.Height != d.Height || len(saved) != d.Bytes {
			t.Errorf("saved file is %s %dx%d, %d bytes (%v); result says %s %dx%d, %d bytes",
				format, cfg.Width, cfg.Height, len(saved), err, d.Format, d.Width, d.Height, d.Bytes)
		}
		return d, res
	}

	t.Run("viewport", func(t *testing.T) {
		open(t, "stripes.html")
		d, res := call(t, env, `{}`)
		if !regexp.MustCompile(`/screenshots/\d{8}-\d{6}\.\d{3}-[0-9a-f]{6}\.png$`).MatchString(d.Path) {
			t.Errorf("path = %s, want screenshots/<time>-<tab>.png", d.Path)
		}
		if d.Width != 1280 || d.Scale != 1 || d.Downscaled || d.Inline != nil {
			t.Errorf("result = %+v, want a 1280 px wide capture at scale 1, inline as saved", d)
		}
		if saved, _ := os.ReadFile(d.Path); !bytes.Equal(saved, res.Image.Data) || res.Image.MIMEType != "image/png" {
			t.Errorf("inline image (%s) is not the saved file", res.Image.MIMEType)
		}
	})

	t.Run("full page, shrunk inline", func(t *testing.T) {
		open(t, "tall.html")
		d, res := call(t, env, `{"fullPage":true}`)
		if !d.Downscaled || d.Width*d.Height > driver.DefaultMaxScreenshotPixels || d.Height < 16000 {
			t.Errorf("result = %+v, want the 20000 px page downscaled to the default pixel limit", d)
		}
		if d.Inline == nil || max(d.Inline.Width, d.Inline.Height) > maxInlineSide {
			t.Fatalf("inline = %+v, want a copy at most %d px a side", d.Inline, maxInlineSide)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(res.Image.Data))
		if err != nil || cfg.Width != d.Inline.Width || cfg.Height != d.Inline.Height || "image/"+format != res.Image.MIMEType || format != d.Inline.Format {
			t.Errorf("inline image is %s %dx%d (%v), result says %+v (%s)", format, cfg.Width, cfg.Height, err, d.Inline, res.Image.MIMEType)
		}
		if len(res.Image.Data) > maxInlineBytes {
			t.Errorf("inline image is %d bytes, over %d", len(res.Image.Data), maxInlineBytes)
		}
	})

	t.Run("element to a named file", func(t *testing.T) {
		open(t, "element.html")
		d, res := call(t, env, `{"selector":"#box","filePath":"shots/box.jpg","quality":70}`)
		if d.Format != "jpeg" || d.Quality != 70 || d.Width != 310 || d.Height != 160 || filepath.Base(d.Path) != "box.jpg" {
			t.Errorf("result = %+v, want a 310x160 jpeg at quality 70 in shots/box.jpg", d)
		}
		if res.Image.MIMEType != "image/jpeg" {
			t.Errorf("inline MIME type = %s, want image/jpeg", res.Image.MIMEType)
		}
	})

	t.Run("webp", func(t *testing.T) {
		open(t, "element.html")
		d, res := call(t, env, `{"format":"webp"}`)
		if d.Format != "webp" || !strings.HasSuffix(d.Path, ".webp") || res.Image.MIMEType != "image/webp" {
			t.Errorf("result = %+v (%s), want a webp", d, res.Image.MIMEType)
		}
	})

	t.Run("errors", func(t *testing.T) {
		open(t, "element.html")
		tiny := *env
		tiny.MaxImageBytes = 100
		tests := []struct {
			env  *Env
			args string
			code Code
		}{
			{env, `{"filePath":"../../etc/x.png"}`, UnsafePath},
			{env, `{"filePath":"/etc/x.png"}`, UnsafePath},
			{env, `{"format":"gif"}`, InvalidArgs},
			{env, `{"format":"png","filePath":"a.jpg"}`, InvalidArgs},
			{env, `{"quality":50}`, InvalidArgs},
			{env, `{"format":"jpeg","quality":101}`, InvalidArgs},
			{env, `{"uid":"e1","selector":"#box"}`, InvalidArgs},
			{env, `{"fullPage":true,"selector":"#box"}`, InvalidArgs},
			{env, `{"selector":"#hidden"}`, ElementHidden},
			{env, `{"selector":"#nope"}`, ElementNotFound},
			{env, `{"uid":"e99999"}`, RefNotFound},
			{&tiny, `{}`, ScreenshotTooLarge},
		}
		for _, tt := range tests {
			_, err := tool.Call(t.Context(), tt.env, json.RawMessage(tt.args))
			var te *Error
			if !errors.As(err, &te) || te.Code != tt.code || te.Message == "" {
				t.Errorf("take_screenshot %s: error %v, want %s", tt.args, err, tt.code)
			}
		}
		if _, err := os.Stat("/etc/x.png"); err == nil {
			t.Error("/etc/x.png exists")
		}
	})
}

func TestFitSide(t *testing.T) {
	tests := []struct{ w, h, side, wantW, wantH int }{
		{1035, 16175, 2000, 127, 2000},
		{4000, 3000, 2000, 2000, 1500},
		{2000, 2000, 2000, 2000, 2000},
		{10, 100000, 2000, 1, 2000},
	}
	for _, tt := range tests {
		if w, h := fitSide(tt.w, tt.h, tt.side); w != tt.wantW || h != tt.wantH {
			t.Errorf("fitSide(%d, %d, %d) = %d, %d; want %d, %d", tt.w, tt.h, tt.side, w, h, tt.wantW, tt.wantH)
		}
	}
}
