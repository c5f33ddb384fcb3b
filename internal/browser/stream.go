package browser

import (
	"context"
	"fmt"
	"io"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	cdpio "github.com/chromedp/cdproto/io"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// streamChunk is how much one IO.read asks for: large enough that a big
// file takes few round trips, small enough that memory stays flat.
const streamChunk = 1 << 20

// streamClose bounds closing a stream, which runs after the call.
const streamClose = 5 * time.Second

// copyStream copies the browser-side stream h to w, one chunk at a time,
// and closes the stream whatever happens. It returns the bytes written.
func copyStream(ctx context.Context, s *cdp.Session, h cdpio.StreamHandle, w io.Writer) (int64, error) {
	defer func() {
		// After the call, under a bound of its own: the call's deadline may
		// be why it stopped, and the close must not stretch it.
		go func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), streamClose)
			defer cancel()
			cdpapi.Call(cctx, s, cdpio.Close, cdpio.CloseParams{Handle: h})
		}()
	}()
	var n int64
	for {
		r, err := cdpapi.Call(ctx, s, cdpio.Read, cdpio.ReadParams{Handle: h, Size: streamChunk})
		if err != nil {
			return n, err
		}
		k, err := w.Write(r.Data)
		n += int64(k)
		if err != nil {
			return n, fmt.Errorf("browser: writing the stream: %w", err)
		}
		if r.EOF {
			return n, nil
		}
	}
}
