package browser

import (
	"context"
	"fmt"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// eventSession is what page logic needs of a session: commands, and events
// of several methods in arrival order. *cdp.Session and cdptest's fake both
// implement it.
type eventSession interface {
	cdpapi.Session
	SubscribeEvents(methods ...string) (<-chan cdp.Event, func())
}

// NavResult is the outcome of a navigation.
type NavResult struct {
	URL    string `json:"url"` // after redirects
	Title  string `json:"title"`
	Status int    `json:"status,omitempty"` // the main document's HTTP status; 0 when none (about:, same-document)
}

// DefaultNavigationTimeout bounds a navigation whose context has no
// deadline: a page whose load never fires must not hold the caller forever.
const DefaultNavigationTimeout = 30 * time.Second

// Navigate loads url in the tab and waits for its load event, or for the
// commit of a same-document navigation such as "#section". The context
// bounds the whole navigation (DefaultNavigationTimeout if it has no
// deadline); when it ends first the error wraps context.DeadlineExceeded
// and the tab stays usable.
func (t *Tab) Navigate(ctx context.Context, url string) (*NavResult, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultNavigationTimeout)
		defer cancel()
	}
	s, err := t.Session(ctx)
	if err != nil {
		return nil, err
	}
	return navigate(ctx, s, url)
}

func navigate(ctx context.Context, s eventSession, url string) (*NavResult, error) {
	// Subscribe before navigating so no event is missed; one channel keeps
	// the document's response ahead of its load.
	events, stop := s.SubscribeEvents("Page.lifecycleEvent", "Network.responseReceived", "Page.navigatedWithinDocument")
	defer stop()

	res, err := cdpapi.Call(ctx, s, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return nil, fmt.Errorf("browser: navigating: %w", err)
	}
	if res.ErrorText != "" {
		return nil, &NavigationError{URL: url, Text: res.ErrorText}
	}
	var status int
	if res.LoaderID != "" {
		if status, err = waitLoad(ctx, events, res); err != nil {
			return nil, fmt.Errorf("browser: waiting for %s to load: %w", url, err)
		}
	} else if err = waitSameDocument(ctx, events, res); err != nil {
		return nil, fmt.Errorf("browser: waiting for %s: %w", url, err)
	}
	loc, err := location(ctx, s)
	if err != nil {
		return nil, err
	}
	return &NavResult{URL: loc.URL, Title: loc.Title, Status: status}, nil
}

// waitSameDocument waits for the same-document navigation res started (no
// LoaderID: no load follows) to commit. Page.navigate answers before it
// does, so until then the history still shows the old URL.
func waitSameDocument(ctx context.Context, events <-chan cdp.Event, res page.NavigateResult) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return cdp.ErrSessionClosed
			}
			var n page.EventNavigatedWithinDocument
			if ev.Method == "Page.navigatedWithinDocument" &&
				jsonv2.Unmarshal(ev.Params, &n) == nil && n.FrameID == res.FrameID {
				return nil
			}
		}
	}
}

// waitLoad waits for the load event of the navigation res started, and
// returns the HTTP status of its document.
func waitLoad(ctx context.Context, events <-chan cdp.Event, res page.NavigateResult) (int, error) {
	status := 0
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return 0, cdp.ErrSessionClosed
			}
			switch ev.Method {
			case "Network.responseReceived":
				var r network.EventResponseReceived
				if jsonv2.Unmarshal(ev.Params, &r) == nil && r.LoaderID == res.LoaderID &&
					r.Type == network.ResourceTypeDocument && r.Response != nil {
					status = int(r.Response.Status)
				}
			case "Page.lifecycleEvent":
				var l page.EventLifecycleEvent
				if jsonv2.Unmarshal(ev.Params, &l) == nil && l.LoaderID == res.LoaderID &&
					l.FrameID == res.FrameID && l.Name == "load" {
					return status, nil
				}
			}
		}
	}
}
