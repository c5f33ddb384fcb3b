package firefox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// PrintPDF implements driver.TabDriver: browsingContext.print. BiDi
// returns the whole document at once, base64 in one message, so unlike
// Chromium's stream it sits in memory while it is written to w.
func (t *Tab) PrintPDF(ctx context.Context, o driver.PDFOptions, w io.Writer) (int64, error) {
	if err := t.CheckDialog(); err != nil {
		return 0, err
	}
	params := map[string]any{"context": t.id, "background": o.PrintBackground, "orientation": "portrait"}
	if o.Landscape {
		params["orientation"] = "landscape"
	}
	if strings.TrimSpace(o.PageRanges) != "" {
		var ranges []string
		for _, r := range strings.Split(o.PageRanges, ",") {
			ranges = append(ranges, strings.TrimSpace(r))
		}
		params["pageRanges"] = ranges
	}
	driver.Step(ctx, "printing to PDF")
	var r struct {
		Data string `json:"data"`
	}
	err := t.b.conn.Call(ctx, "browsingContext.print", params, &r)
	var ce *bidi.CommandError
	if errors.As(err, &ce) && ce.Code == "invalid argument" {
		return 0, fmt.Errorf("%w: page ranges %q: %s", driver.ErrInvalidArgument, o.PageRanges, ce.Message)
	}
	if err != nil {
		return 0, t.wrap(err)
	}
	data, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return 0, fmt.Errorf("firefox: decoding the PDF: %w", err)
	}
	n, err := w.Write(data)
	return int64(n), err
}
