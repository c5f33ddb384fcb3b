package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// The -formats mode answers "which image format should a viewport
// screenshot default to?" with Chromium's own encoders: on each bench page
// and a photo-like one, one Page.captureScreenshot per format and encoder
// setting, taken in turns so that load hits each alike, with the time and
// the bytes of each. The pixels, and so the tokens an agent pays for the
// image, are the same in every row; only the encoder time and the bytes
// differ. The viewport rows compare ways of asking for the same PNG.

// formatCase is one way of capturing the viewport.
type formatCase struct {
	name string
	p    page.CaptureScreenshotParams
}

func formatCases() []formatCase {
	yes, no := true, false
	q := int64(80)
	return []formatCase{
		{"png", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}},
		{"png fast", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: &yes}},
		{"jpeg 80", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: &q}},
		{"jpeg 80 fast", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: &q, OptimizeForSpeed: &yes}},
		{"webp 80", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatWebp, Quality: &q}},
		{"webp 80 fast", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatWebp, Quality: &q, OptimizeForSpeed: &yes}},
		{"png fast, beyond viewport false", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: &yes, CaptureBeyondViewport: &no}},
		{"png fast, clip = viewport", page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: &yes,
			Clip: &page.Viewport{Width: viewportW, Height: viewportH, Scale: 1}}},
	}
}

// runFormats measures formatCases on the bench pages and prints a table.
func runFormats(ctx context.Context, log *slog.Logger, cfg *config, w io.Writer) error {
	ctx, scratch, srv, done, err := standalone(ctx, log, cfg)
	if err != nil {
		return err
	}
	defer done()
	dir := filepath.Join(scratch, "formats-profile")
	db, err := startDebugBrowser(ctx, cfg.chromium, dir, fmt.Sprintf("--window-size=%d,%d", viewportW, viewportH))
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := browser.Start(ctx, &browser.Options{AutoConnect: dir, Logger: log})
	if err != nil {
		return err
	}
	defer b.Close() // only disconnects; db.Close stops the browser
	tab, err := b.NewTab(ctx)
	if err != nil {
		return err
	}
	if err := b.Activate(ctx, tab); err != nil {
		return err
	}
	if _, err := tab.SetViewport(ctx, &driver.Viewport{Width: viewportW, Height: viewportH, DeviceScaleFactor: 1}); err != nil {
		return err
	}
	s, err := rawcdp.Session(ctx, tab)
	if err != nil {
		return err
	}
	cases := formatCases()
	fmt.Fprintf(w, "Page.captureScreenshot of a %d×%d viewport at 1x, p50 of %d captures each, taken in turns\n\n", viewportW, viewportH, cfg.iters)
	fmt.Fprintln(w, "| page | capture | min ms | p50 ms | p90 ms | bytes |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
	pages := append(append([]string{}, peerPages...), "photo")
	for _, name := range pages {
		url := srv.URL + "/pages/" + name + ".html"
		if name == "photo" {
			url = srv.URL + "/photo.html"
		}
		if _, err := tab.Navigate(ctx, url); err != nil {
			return err
		}
		sizes := make([]int, len(cases))
		ops := make([]op, len(cases))
		for k, c := range cases {
			ops[k] = func(ctx context.Context, _ int) error {
				n, err := formatCapture(ctx, s, c.p)
				sizes[k] = n
				return err
			}
		}
		lat, err := measure(ctx, 3, cfg.iters, ops...)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for k, c := range cases {
			fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %.1f | %d |\n", name, c.name, ms(lat[k][0]), ms(lat[k].p(50)), ms(lat[k].p(90)), sizes[k])
		}
	}
	return nil
}

func formatCapture(ctx context.Context, s *cdp.Session, p page.CaptureScreenshotParams) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := cdpapi.Call(ctx, s, page.CaptureScreenshot, p)
	if err != nil {
		return 0, err
	}
	return len(res.Data), nil
}
