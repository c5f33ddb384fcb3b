package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig for jpeg captures
	_ "image/png"  // DecodeConfig for png captures

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// ScreenshotOptions choose the encoding of a capture.
type ScreenshotOptions struct {
	Format  string // "png" (default) or "jpeg"
	Quality int    // 0–100, jpeg only; 0 means the browser's default
}

// Screenshot is an encoded image with its real size, read from its bytes.
type Screenshot struct {
	Data   []byte
	Format string
	Width  int
	Height int
}

// Screenshot captures the tab's viewport.
func (t *Tab) Screenshot(ctx context.Context, o ScreenshotOptions) (*Screenshot, error) {
	format := o.Format
	if format == "" {
		format = "png"
	}
	if format != "png" && format != "jpeg" {
		return nil, fmt.Errorf("browser: screenshot format %q: want png or jpeg", format)
	}
	s, err := t.Session(ctx)
	if err != nil {
		return nil, err
	}
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormat(format)}
	if format == "jpeg" && o.Quality > 0 {
		q := int64(o.Quality)
		p.Quality = &q
	}
	res, err := cdpapi.Call(ctx, s, page.CaptureScreenshot, p)
	if err != nil {
		return nil, fmt.Errorf("browser: capturing screenshot: %w", err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return nil, fmt.Errorf("browser: reading screenshot size: %w", err)
	}
	return &Screenshot{Data: res.Data, Format: format, Width: cfg.Width, Height: cfg.Height}, nil
}
