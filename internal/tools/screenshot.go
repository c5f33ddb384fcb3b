package tools

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decoding webp captures for the inline copy

	"github.com/cdpkit/cdpkit/internal/driver"
)

// The inline copy of a screenshot, the one the model sees, stays within
// these bounds; the saved file is always the full capture. 2000 px is
// the most image APIs accept per side when a request holds many images,
// and 1 MiB keeps a conversation from filling with image data.
const (
	maxInlineSide  = 2000
	maxInlineBytes = 1 << 20
)

type screenshotArgs struct {
	Target   string `json:"target,omitempty"`
	FullPage bool   `json:"fullPage,omitempty"`
	UID      string `json:"uid,omitempty" jsonschema:"ref (e12)"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector"`
	Format   string `json:"format,omitempty" jsonschema:"png (default), jpeg or webp"`
	Quality  int    `json:"quality,omitempty" jsonschema:"1-100"`
	FilePath string `json:"filePath,omitempty"`
	DelayMs  int    `json:"delay_ms,omitempty"`

	format string // by check, from Format or FilePath
}

func screenshotTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "take_screenshot",
			Description: "Screenshot of the viewport, page or an element, saved and returned inline (downscaled if big).",
			ReadOnly:    true,
			Core:        true,
			Verbs:       []Verb{{Name: "screenshot", Args: []string{"path?"}, Summary: "save a screenshot (to path, else the artifact dir)", Rank: 7}},
		}, takeScreenshot),
	}
}

type screenshotData struct {
	Path       string      `json:"path"`
	Format     string      `json:"format"`
	Width      int         `json:"width"`
	Height     int         `json:"height"`
	Bytes      int         `json:"bytes"`
	Scale      float64     `json:"scale"`
	Downscaled bool        `json:"downscaled"`
	Quality    int         `json:"quality,omitempty"`
	Inline     *inlineInfo `json:"inline,omitempty"` // set when the inline image is not the saved file
}

type inlineInfo struct {
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// extFormats maps file extensions to formats, for a filePath without format.
var extFormats = map[string]string{".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}

// maxScreenshotDelay bounds take_screenshot's delay_ms.
const maxScreenshotDelay = 10_000

func (in *screenshotArgs) check(_ context.Context, env *Env) error {
	if in.DelayMs < 0 || in.DelayMs > maxScreenshotDelay {
		return errorf(InvalidArgs, false, fmt.Sprintf("use 0-%d", maxScreenshotDelay), "delay_ms %d is out of range", in.DelayMs)
	}
	format := in.Format
	if f, ok := extFormats[strings.ToLower(filepath.Ext(in.FilePath))]; ok {
		if format == "" {
			format = f
		} else if format != f {
			return errorf(InvalidArgs, false, "give a filePath ending in ."+format+", or omit format",
				"format %s does not match filePath %q", format, in.FilePath)
		}
	}
	switch format {
	case "", "png", "jpeg", "webp":
	default:
		return errorf(InvalidArgs, false, "use png, jpeg or webp", "format %q is not supported", in.Format)
	}
	if in.Quality != 0 && (format == "" || format == "png") {
		return errorf(InvalidArgs, false, "quality is for jpeg and webp; omit it for png", "quality does not apply to png")
	}
	if in.Quality < 0 || in.Quality > 100 {
		return errorf(InvalidArgs, false, "use 1-100", "quality %d is out of range", in.Quality)
	}
	if in.UID != "" && in.Selector != "" {
		return errorf(InvalidArgs, false, "give uid or selector", "uid and selector do not go together")
	}
	if in.FullPage && (in.UID != "" || in.Selector != "") {
		return errorf(InvalidArgs, false, "omit fullPage to capture one element", "fullPage does not go with uid or selector")
	}
	in.format = format
	if in.FilePath != "" {
		return env.Artifacts.Check(in.FilePath) // before the work whose result it would hold
	}
	return nil
}

func takeScreenshot(ctx context.Context, env *Env, d *door, in screenshotArgs) (*Result, error) {
	tab, format := d.tab, in.format
	if in.DelayMs > 0 {
		delay := time.Duration(in.DelayMs) * time.Millisecond
		if budget := waitBudget(ctx); delay > budget {
			return nil, errorf(InvalidArgs, false, "shorten delay_ms, or raise the tool timeout",
				"delay_ms %d is past the call's deadline (%d ms left)", in.DelayMs, budget.Milliseconds())
		}
		progress(ctx, "waiting before the capture")
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	progress(ctx, "capturing")
	shot, err := tab.Screenshot(ctx, driver.ScreenshotOptions{
		Format: format, Quality: in.Quality, FullPage: in.FullPage, Ref: in.UID, Selector: in.Selector,
		MaxPixels: env.MaxScreenshotPixels, MaxBytes: env.MaxImageBytes,
	})
	if err != nil {
		return nil, err
	}
	progress(ctx, "saving")
	name := in.FilePath
	if name == "" {
		ext := "." + shot.Format
		if shot.Format == "jpeg" {
			ext = ".jpg"
		}
		id := strings.ToLower(tab.ID())
		name = filepath.Join("screenshots", time.Now().Format("20060102-150405.000")+"-"+id[:min(6, len(id))]+ext)
	}
	path, err := env.Artifacts.WriteFile(name, shot.Data)
	if err != nil {
		return nil, err
	}
	data := screenshotData{
		Path: path, Format: shot.Format, Width: shot.Width, Height: shot.Height, Bytes: len(shot.Data),
		Scale: shot.Scale, Downscaled: shot.Downscaled, Quality: shot.Quality,
	}
	img, err := inlineImage(shot)
	if err != nil {
		return nil, err
	}
	if !in.FullPage && in.UID == "" && in.Selector == "" && shot.Width > 0 {
		// What the agent sees of the viewport, for the vision tools.
		if p, ok := tab.(driver.Pointer); ok {
			p.SetImageScale(shot.Scale * float64(img.Width) / float64(shot.Width))
		}
	}
	if img.Width != shot.Width || img.Height != shot.Height || img.Format != shot.Format {
		data.Inline = &inlineInfo{Format: img.Format, Width: img.Width, Height: img.Height}
	}
	return &Result{Data: data, Image: &Image{Data: img.Data, MIMEType: "image/" + img.Format}}, nil
}

// inlineImage returns shot itself if it is within the inline bounds, else
// a smaller copy: png stays png if that fits the bytes, otherwise jpeg.
func inlineImage(shot *driver.Screenshot) (*driver.Screenshot, error) {
	if max(shot.Width, shot.Height) <= maxInlineSide && len(shot.Data) <= maxInlineBytes {
		return shot, nil
	}
	// Decoding and scaling take many times the image's size, which the Go
	// runtime would keep resident long after: hand it back to the OS when
	// done (issue #25 item 17).
	defer debug.FreeOSMemory()
	src, _, err := image.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		return nil, fmt.Errorf("tools: decoding the screenshot: %w", err)
	}
	side := min(maxInlineSide, max(shot.Width, shot.Height))
	for {
		w, h := fitSide(shot.Width, shot.Height, side)
		dst := src // over the bytes but not the side: re-encoded as it is
		if w != shot.Width || h != shot.Height {
			scaled := image.NewRGBA(image.Rect(0, 0, w, h))
			draw.BiLinear.Scale(scaled, scaled.Bounds(), src, src.Bounds(), draw.Src, nil)
			dst = scaled
		}
		var buf bytes.Buffer
		format := "png"
		if shot.Format == "png" {
			err = png.Encode(&buf, dst)
		}
		if shot.Format != "png" || buf.Len() > maxInlineBytes {
			buf.Reset()
			format = "jpeg"
			err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 80})
		}
		if err != nil {
			return nil, fmt.Errorf("tools: encoding the inline screenshot: %w", err)
		}
		if buf.Len() <= maxInlineBytes || side <= 64 {
			return &driver.Screenshot{Data: buf.Bytes(), Format: format, Width: w, Height: h}, nil
		}
		side = side * 3 / 4
	}
}

// fitSide scales w × h down so that its longest side is side.
func fitSide(w, h, side int) (int, int) {
	if w >= h {
		return side, max(1, h*side/w)
	}
	return max(1, w*side/h), side
}
