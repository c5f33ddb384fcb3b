package firefox

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of captures
	_ "image/png"

	"github.com/cdpkit/cdpkit/internal/browser"
)

// Screenshot implements browser.TabDriver: browsingContext.captureScreenshot
// of the viewport, the whole document (FullPage) or one element. Firefox
// encodes png and jpeg; an image past MaxPixels or MaxBytes is refused
// with ErrScreenshotTooLarge rather than downscaled.
func (t *Tab) Screenshot(ctx context.Context, o browser.ScreenshotOptions) (*browser.Screenshot, error) {
	if err := t.CheckDialog(); err != nil {
		return nil, err
	}
	format := map[string]any{"type": "image/png"}
	switch o.Format {
	case "", "png":
		o.Format = "png"
	case "jpeg":
		q := o.Quality
		if q == 0 {
			q = 80
		}
		o.Quality = q
		format = map[string]any{"type": "image/jpeg", "quality": float64(q) / 100}
	default:
		return nil, unsupported("format " + o.Format)
	}
	params := map[string]any{"context": t.id, "origin": "viewport", "format": format}
	if o.FullPage {
		params["origin"] = "document"
	}
	if o.Ref != "" || o.Selector != "" {
		el, err := t.element(ctx, o.Ref, o.Selector)
		if err != nil {
			return nil, err
		}
		if el.Context != "" && el.Context != t.id {
			return nil, unsupported("a screenshot of an element inside a frame")
		}
		if err := t.callJSON(ctx, sharedScript("center"), el, nil); err != nil {
			return nil, elementErr(o.Ref, o.Selector, t.wrap(err))
		}
		params["clip"] = map[string]any{"type": "element", "element": el}
	}
	browser.Step(ctx, "capturing the screenshot")
	var r struct {
		Data string `json:"data"`
	}
	if err := t.b.conn.Call(ctx, "browsingContext.captureScreenshot", params, &r); err != nil {
		return nil, elementErr(o.Ref, o.Selector, t.wrap(err))
	}
	data, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return nil, fmt.Errorf("firefox: decoding the screenshot: %w", err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("firefox: reading the screenshot: %w", err)
	}
	maxPixels, maxBytes := o.MaxPixels, o.MaxBytes
	if maxPixels <= 0 {
		maxPixels = browser.DefaultMaxScreenshotPixels
	}
	if maxBytes <= 0 {
		maxBytes = browser.DefaultMaxImageBytes
	}
	if cfg.Width*cfg.Height > maxPixels {
		return nil, unsupported(fmt.Sprintf("a %d×%d capture, over %d pixels (Firefox captures are not downscaled)", cfg.Width, cfg.Height, maxPixels))
	}
	if len(data) > maxBytes {
		return nil, &browser.ScreenshotTooLargeError{Bytes: len(data), Limit: maxBytes, Width: cfg.Width, Height: cfg.Height}
	}
	var dpr float64
	if err := t.callJSON(ctx, sharedScript("device_pixel_ratio"), nil, &dpr); err != nil || dpr <= 0 {
		dpr = 1
	}
	return &browser.Screenshot{Data: data, Format: o.Format, Quality: o.Quality, Width: cfg.Width, Height: cfg.Height, Scale: dpr}, nil
}
