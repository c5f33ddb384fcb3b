package tools

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"time"

	"golang.org/x/image/draw"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// seedWait bounds the screenshot that stands in for a recording that
// captured no frame.
const seedWait = 10 * time.Second

// seed puts one screenshot of the tab, fitted to the recording's frame
// bounds, in the spool as its first frame, painted at the start.
func (r *recording) seed(ctx context.Context) error {
	if r.tab == nil {
		return fmt.Errorf("tools: no tab")
	}
	ctx, cancel := context.WithTimeout(ctx, seedWait)
	defer cancel()
	shot, err := r.tab.Screenshot(ctx, driver.ScreenshotOptions{Format: r.opts.Format, Quality: r.opts.Quality})
	if err != nil {
		return err
	}
	data, err := fitFrame(shot.Data, r.opts)
	if err != nil {
		return err
	}
	return r.spool.Add(data, r.spool.Start())
}

// fitFrame scales an encoded frame down to MaxWidth × MaxHeight, as the
// screencast would have, keeping its format.
func fitFrame(data []byte, o driver.ScreencastOptions) ([]byte, error) {
	if o.MaxWidth <= 0 && o.MaxHeight <= 0 {
		return data, nil
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("tools: decoding a frame: %w", err)
	}
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	scale := 1.0
	if o.MaxWidth > 0 && w > o.MaxWidth {
		scale = float64(o.MaxWidth) / float64(w)
	}
	if o.MaxHeight > 0 && float64(h)*scale > float64(o.MaxHeight) {
		scale = float64(o.MaxHeight) / float64(h)
	}
	if scale == 1 {
		return data, nil
	}
	dst := image.NewRGBA(image.Rect(0, 0, max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))))
	draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if o.Format == "png" {
		err = png.Encode(&buf, dst)
	} else {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 80})
	}
	if err != nil {
		return nil, fmt.Errorf("tools: encoding a frame: %w", err)
	}
	return buf.Bytes(), nil
}
