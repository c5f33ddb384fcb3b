package tools

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/browser"
)

type screenshotArgs struct {
	Target  string `json:"target,omitempty" jsonschema:"tab: active (default), index:N, url:SUBSTR, title:SUBSTR or a tab id"`
	Format  string `json:"format,omitempty" jsonschema:"png (default) or jpeg"`
	Quality int    `json:"quality,omitempty" jsonschema:"jpeg quality 1-100"`
}

func screenshotTools() []Tool {
	return []Tool{
		define(Tool{
			Name:        "take_screenshot",
			Description: "Capture a tab's viewport as an image. Returns the image plus its format, width and height.",
			ReadOnly:    true,
		}, takeScreenshot),
	}
}

func takeScreenshot(ctx context.Context, env *Env, in screenshotArgs) (*Result, error) {
	switch in.Format {
	case "", "png", "jpeg":
	default:
		return nil, errorf(InvalidArgs, false, "use png or jpeg", "format %q is not supported", in.Format)
	}
	if in.Quality < 0 || in.Quality > 100 {
		return nil, errorf(InvalidArgs, false, "use 1-100", "quality %d is out of range", in.Quality)
	}
	tab, err := resolveTab(ctx, env, in.Target)
	if err != nil {
		return nil, err
	}
	shot, err := tab.Screenshot(ctx, browser.ScreenshotOptions{Format: in.Format, Quality: in.Quality})
	if err != nil {
		return nil, err
	}
	return &Result{
		Data: map[string]any{
			"format": shot.Format,
			"width":  shot.Width,
			"height": shot.Height,
			"bytes":  len(shot.Data),
		},
		Image: &Image{Data: shot.Data, MIMEType: "image/" + shot.Format},
	}, nil
}
