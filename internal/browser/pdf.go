package browser

import (
	"context"
	"fmt"
	"io"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// PrintPDF prints the tab's page to PDF and streams the file to w, so that
// a long document never sits whole in memory. It returns the bytes
// written. A page range that selects no page wraps ErrInvalidArgument.
func (t *Tab) PrintPDF(ctx context.Context, o driver.PDFOptions, w io.Writer) (int64, error) {
	s, err := t.session(ctx)
	if err != nil {
		return 0, err
	}
	driver.Step(ctx, "printing to PDF")
	res, err := cdpapi.Call(ctx, s, page.PrintToPDF, page.PrintToPDFParams{
		Landscape: &o.Landscape, PrintBackground: &o.PrintBackground, PageRanges: o.PageRanges,
		TransferMode: page.PrintToPDFTransferModeReturnAsStream,
	})
	if err != nil {
		if o.PageRanges != "" && cdp.IsProtocolError(err) {
			return 0, fmt.Errorf("%w: page ranges %q: %v", driver.ErrInvalidArgument, o.PageRanges, err)
		}
		return 0, err
	}
	if res.Stream == "" { // a browser that ignored the transfer mode
		n, err := w.Write(res.Data)
		return int64(n), err
	}
	return copyStream(ctx, s, res.Stream, w)
}
