package firefox

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of captures
	_ "image/png"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Screenshot implements driver.TabDriver: browsingContext.captureScreenshot
// of the viewport, the whole document (FullPage) or one element. Firefox
// encodes png and jpeg; an image past MaxPixels or MaxBytes is refused
// with ErrScreenshotTooLarge rather than downscaled.
func (t *Tab) Screenshot(ctx context.Context, o driver.ScreenshotOptions) (*driver.Screenshot, error) {
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
			box, err := t.frameElementBox(ctx, el)
			if errors.Is(err, driver.ErrElementNotVisible) {
				return nil, &driver.ElementError{Ref: o.Ref, Selector: o.Selector, Err: err}
			}
			if err != nil {
				return nil, elementErr(o.Ref, o.Selector, err)
			}
			params["clip"] = box
		} else {
			if err := t.callJSON(ctx, sharedScript("center"), el, nil); err != nil {
				return nil, elementErr(o.Ref, o.Selector, t.wrap(err))
			}
			params["clip"] = map[string]any{"type": "element", "element": el}
		}
	}
	driver.Step(ctx, "capturing the screenshot")
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
		maxPixels = driver.DefaultMaxScreenshotPixels
	}
	if maxBytes <= 0 {
		maxBytes = driver.DefaultMaxImageBytes
	}
	if cfg.Width*cfg.Height > maxPixels {
		return nil, unsupported(fmt.Sprintf("a %d×%d capture, over %d pixels (Firefox captures are not downscaled)", cfg.Width, cfg.Height, maxPixels))
	}
	if len(data) > maxBytes {
		return nil, &driver.ScreenshotTooLargeError{Bytes: len(data), Limit: maxBytes, Width: cfg.Width, Height: cfg.Height}
	}
	var dpr float64
	if err := t.callJSON(ctx, sharedScript("device_pixel_ratio"), nil, &dpr); err != nil || dpr <= 0 {
		dpr = 1
	}
	return &driver.Screenshot{Data: data, Format: o.Format, Quality: o.Quality, Width: cfg.Width, Height: cfg.Height, Scale: dpr}, nil
}

// frameBoxJS scrolls an element into view and returns its border box in
// its frame's viewport, cut to that viewport.
const frameBoxJS = `function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
	const r = e.getBoundingClientRect();
	const x = Math.max(r.left, 0), y = Math.max(r.top, 0);
	return {x, y, width: Math.max(Math.min(r.right, innerWidth) - x, 0),
		height: Math.max(Math.min(r.bottom, innerHeight) - y, 0)};
}`

// frameElementBox returns the clip of an element inside a frame as a box
// in the tab's viewport, for a capture of the tab: an element clip must
// name a node of the captured context, and the tab is what is captured.
// The box is the element's in its frame, cut to the frame's viewport and
// moved by the frame's offset in the tab.
func (t *Tab) frameElementBox(ctx context.Context, el *sharedRef) (map[string]any, error) {
	var r struct{ X, Y, Width, Height float64 }
	if err := t.callJSON(ctx, frameBoxJS, el, &r); err != nil {
		return nil, t.wrap(err)
	}
	if r.Width <= 0 || r.Height <= 0 {
		return nil, driver.ErrElementNotVisible
	}
	dx, dy, err := t.frameOffset(ctx, el.Context)
	if err != nil {
		return nil, t.wrap(err)
	}
	return map[string]any{"type": "box", "x": r.X + dx, "y": r.Y + dy, "width": r.Width, "height": r.Height}, nil
}
