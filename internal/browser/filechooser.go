package browser

import (
	"context"
	"fmt"
	"sync"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// chooserNote keeps the last file chooser the tab's page opened until it
// is reported.
type chooserNote struct {
	mu      sync.Mutex
	s       *cdp.Session // guarded by mu; nil when none is waiting to be reported
	frame   cdpapi.FrameID
	backend cdpapi.BackendNodeID
	multi   bool
}

// follow notes the file choosers s reports, and asks for them: with the
// interception on, Chromium reports a chooser instead of showing one.
func (c *chooserNote) follow(ctx context.Context, s *cdp.Session) error {
	events, stop := s.SubscribeEvents("Page.fileChooserOpened")
	go func() {
		defer stop()
		for ev := range events {
			var e page.EventFileChooserOpened
			if jsonv2.Unmarshal(ev.Params, &e) != nil {
				continue
			}
			c.mu.Lock()
			c.s, c.frame, c.backend, c.multi = s, e.FrameID, e.BackendNodeID, e.Mode == page.FileChooserOpenedModeSelectMultiple
			c.mu.Unlock()
		}
	}()
	if _, err := cdpapi.Call(ctx, s, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
		return fmt.Errorf("browser: intercepting file choosers: %w", err)
	}
	return nil
}

// FileChooser returns the file chooser the page opened since the last
// call, with a ref for its input, or nil.
func (t *Tab) FileChooser(ctx context.Context) (*driver.FileChooser, error) {
	c := &t.chooser
	c.mu.Lock()
	s, frame, backend, multi := c.s, c.frame, c.backend, c.multi
	c.s = nil
	c.mu.Unlock()
	if s == nil {
		return nil, nil
	}
	fc := &driver.FileChooser{Multiple: multi}
	if backend == 0 {
		return fc, nil // opened by script (showOpenFilePicker), not by an input
	}
	lds, _, err := loaders(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("browser: reading frames: %w", err)
	}
	fc.Ref = t.refs.ref(refEntry{session: s, frame: frame, loader: lds[frame], backend: backend})
	return fc, nil
}
