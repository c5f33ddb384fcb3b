package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// eventSession is what page logic needs of a session: commands, and events
// of several methods in arrival order. *cdp.Session and cdptest's fake both
// implement it.
type eventSession interface {
	cdpapi.Session
	SubscribeEvents(methods ...string) (<-chan cdp.Event, func())
}

// DefaultNavigationTimeout bounds a navigation whose context has no
// deadline: a page whose load never fires must not hold the caller forever.
const DefaultNavigationTimeout = 30 * time.Second

// withNavDeadline gives ctx the default navigation deadline if it has none.
func withNavDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultNavigationTimeout)
}

// Navigate loads url in the tab and waits for its load event, or for the
// commit of a same-document navigation such as "#section". It is
// NavigateWith with default options.
func (t *Tab) Navigate(ctx context.Context, url string) (*driver.NavResult, error) {
	return t.NavigateWith(ctx, url, nil)
}

// NavigateWith loads url in the tab and waits for the point o names. A
// change of the fragment only (the current URL but for its #fragment) is a
// same-document navigation: it is done when it commits, whatever the state
// of the document's own load.
//
// The context bounds the whole navigation (DefaultNavigationTimeout if it
// has no deadline); when it ends first the error wraps
// context.DeadlineExceeded and the tab stays usable. A network error is a
// [*NavigationError].
func (t *Tab) NavigateWith(ctx context.Context, url string, o *driver.NavOptions) (*driver.NavResult, error) {
	return t.runNavigation(ctx, o, func(ctx context.Context, s *cdp.Session, want []string) (*driver.NavResult, error) {
		sameDoc := false
		if strings.Contains(url, "#") { // else it cannot be a fragment change
			cur, err := location(ctx, s)
			if err != nil {
				return nil, err
			}
			sameDoc = fragmentOnly(cur.URL, url)
		}
		res, err := navigateTo(ctx, s, url, want, sameDoc)
		if !errors.Is(err, errNavDownload) {
			return res, err
		}
		// The file is being saved; the tab stays where it was.
		t.downloading.Store(true)
		loc, err := location(ctx, s)
		if err != nil {
			return nil, err
		}
		return &driver.NavResult{URL: loc.URL, Title: loc.Title, Download: true}, nil
	})
}

// errNavDownload is navigateTo's answer for a URL that the browser
// downloads instead of showing.
var errNavDownload = errors.New("browser: the URL is a download")

// runNavigation runs nav on the tab's session with the lifecycle events o
// asks for, under the navigation deadline.
func (t *Tab) runNavigation(ctx context.Context, o *driver.NavOptions, nav func(ctx context.Context, s *cdp.Session, want []string) (*driver.NavResult, error)) (*driver.NavResult, error) {
	return t.runNavigationKind(ctx, o, false, nav)
}

// runNavigationKind is runNavigation; reloading says nav reloads the
// current document, which needs a live renderer.
func (t *Tab) runNavigationKind(ctx context.Context, o *driver.NavOptions, reloading bool, nav func(ctx context.Context, s *cdp.Session, want []string) (*driver.NavResult, error)) (*driver.NavResult, error) {
	want, err := o.Lifecycle()
	if err != nil {
		return nil, err
	}
	ctx, cancel := withNavDeadline(ctx)
	defer cancel()
	loaded := new(atomic.Bool)
	ctx = context.WithValue(ctx, docLoadedKey{}, loaded)
	ctx = context.WithValue(ctx, whereKey{}, &t.where)
	t.settled.Store(false)
	defer t.queue.navigating()() // reads wait for it
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	driver.Step(ctx, "loading the page")
	start := time.Now()
	if t.breakDialogLoop(ctx, s) && reloading {
		// The stopped renderer cannot say what it showed: load its URL.
		nav = func(ctx context.Context, s *cdp.Session, want []string) (*driver.NavResult, error) {
			loc, err := location(ctx, s)
			if err != nil {
				return nil, err
			}
			return navigateTo(ctx, s, loc.URL, want, false)
		}
	}
	var res *driver.NavResult
	if t.CheckDialog() != nil {
		res, err = nav(ctx, s, want) // the navigation closes the dialog open now
	} else {
		// A dialog the new page opens while it loads (a confirm in a
		// script) holds the load until answered: say so rather than wait.
		// A new page that opens dialogs in a loop answered by the policy
		// never loads: UntilDialog stops it rather than wait.
		dctx, stop := t.UntilDialog(ctx)
		defer stop()
		res, err = nav(dctx, s, want)
		err = dialogErr(dctx, err)
	}
	if err == nil {
		t.crashed.Store(false) // a new document has a new renderer
		// A new document that fired load has run its scripts: Settle
		// would only wait behind its first frame, which the next read
		// waits for anyway. A same-document one (hashchange, popstate
		// handlers still to run) or one only parsed is still settled.
		t.settled.Store(loaded.Load())
	}
	return res, t.explainBlock(err, start)
}

// result waits for the navigation n describes and reports where the tab
// ended up; what names it in an error.
func (n *navigation) result(ctx context.Context, s eventSession, events <-chan cdp.Event, what string) (*driver.NavResult, error) {
	status, err := n.wait(ctx, events)
	if err != nil {
		return nil, fmt.Errorf("browser: waiting for %s: %w", what, err)
	}
	where := whereOf(ctx)
	gen := where.mark()
	loc, err := location(ctx, s)
	if err != nil {
		return nil, err
	}
	where.put(s, gen, loc.URL)
	return &driver.NavResult{URL: loc.URL, Title: loc.Title, Status: status}, nil
}

// fragmentOnly reports whether navigating from to to changes only the
// fragment, which Chromium does within the document.
func fragmentOnly(from, to string) bool {
	if !strings.Contains(to, "#") {
		return false // dropping the fragment loads the document again
	}
	f, err1 := url.Parse(from)
	u, err2 := url.Parse(to)
	if err1 != nil || err2 != nil {
		return false
	}
	for _, x := range []*url.URL{f, u} {
		x.Fragment, x.RawFragment = "", ""
		if x.Path == "" && (x.Scheme == "http" || x.Scheme == "https") {
			x.Path = "/"
		}
		x.Scheme, x.Host = strings.ToLower(x.Scheme), strings.ToLower(x.Host)
	}
	return f.String() == u.String()
}

// navigate loads url and waits for its load event.
func navigate(ctx context.Context, s eventSession, url string) (*driver.NavResult, error) {
	return navigateTo(ctx, s, url, []string{"load"}, false)
}

// navEvents are the events a navigation is followed by.
var navEvents = []string{
	"Page.lifecycleEvent", "Page.navigatedWithinDocument", "Page.frameNavigated",
	"Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFailed",
}

// navigateTo loads url and waits until the lifecycle events want have
// fired. With sameDoc (a predicted fragment change) the commit of a
// same-document navigation also ends the wait.
func navigateTo(ctx context.Context, s eventSession, url string, want []string, sameDoc bool) (*driver.NavResult, error) {
	// Subscribe before navigating so no event is missed; one channel keeps
	// the document's response ahead of its load.
	events, stop := s.SubscribeEvents(navEvents...)
	defer stop()

	res, err := cdpapi.Call(ctx, s, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return nil, fmt.Errorf("browser: navigating: %w", err)
	}
	if res.IsDownload {
		return nil, errNavDownload
	}
	if res.ErrorText != "" {
		if res.LoaderID != "" && !res.IsDownload && res.ErrorText != "net::ERR_ABORTED" {
			awaitErrorPage(ctx, events, res.FrameID, res.LoaderID)
		}
		return nil, &driver.NavigationError{URL: url, Text: res.ErrorText}
	}
	// Page.navigate answers with no loader for a same-document navigation:
	// no load follows, and until it commits the history shows the old URL.
	n := &navigation{url: url, frame: res.FrameID, loader: res.LoaderID, sameDoc: sameDoc || res.LoaderID == "", want: want}
	return n.result(ctx, s, events, url)
}

// Reload reloads the tab's document, from the network when ignoreCache is
// set, and waits as [Tab.NavigateWith] does.
func (t *Tab) Reload(ctx context.Context, ignoreCache bool, o *driver.NavOptions) (*driver.NavResult, error) {
	if t.crashed.Load() {
		return t.reloadCrashed(ctx, o)
	}
	return t.runNavigationKind(ctx, o, true, func(ctx context.Context, s *cdp.Session, want []string) (*driver.NavResult, error) {
		return reload(ctx, s, ignoreCache, want)
	})
}

func reload(ctx context.Context, s eventSession, ignoreCache bool, want []string) (*driver.NavResult, error) {
	events, stop := s.SubscribeEvents(navEvents...)
	defer stop()
	main, err := mainFrame(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("browser: reloading: %w", err)
	}
	// LoaderID makes Chromium refuse if another navigation got in first.
	if _, err := cdpapi.Call(ctx, s, page.Reload, page.ReloadParams{IgnoreCache: &ignoreCache, LoaderID: main.LoaderID}); err != nil {
		return nil, fmt.Errorf("browser: reloading: %w", err)
	}
	addr := main.URL + main.URLFragment
	if main.UnreachableURL != "" {
		addr = main.UnreachableURL // reloading an error page loads what failed
	}
	n := &navigation{url: addr, frame: main.ID, old: main.LoaderID, want: want}
	return n.result(ctx, s, events, "the reload")
}

// GoBack goes one entry back in the tab's history and waits as
// [Tab.NavigateWith] does; an entry of the same document (a fragment or
// history.pushState) is done when it commits, and a page restored from the
// back/forward cache when it is shown. At the start of the history it is a
// [*HistoryEndError].
func (t *Tab) GoBack(ctx context.Context, o *driver.NavOptions) (*driver.NavResult, error) {
	return t.goHistory(ctx, -1, o)
}

// GoForward is like [Tab.GoBack], one entry forward.
func (t *Tab) GoForward(ctx context.Context, o *driver.NavOptions) (*driver.NavResult, error) {
	return t.goHistory(ctx, +1, o)
}

func (t *Tab) goHistory(ctx context.Context, delta int, o *driver.NavOptions) (*driver.NavResult, error) {
	return t.runNavigation(ctx, o, func(ctx context.Context, s *cdp.Session, want []string) (*driver.NavResult, error) {
		return goHistory(ctx, s, delta, want)
	})
}

func goHistory(ctx context.Context, s eventSession, delta int, want []string) (*driver.NavResult, error) {
	h, err := cdpapi.Call(ctx, s, page.GetNavigationHistory, cdpapi.Empty{})
	if err != nil {
		return nil, fmt.Errorf("browser: reading history: %w", err)
	}
	i := int(h.CurrentIndex) + delta
	if i < 0 || i >= len(h.Entries) {
		return nil, &driver.HistoryEndError{Forward: delta > 0}
	}
	entry := h.Entries[i]
	events, stop := s.SubscribeEvents(navEvents...)
	defer stop()
	main, err := mainFrame(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("browser: reading history: %w", err)
	}
	if _, err := cdpapi.Call(ctx, s, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: entry.ID}); err != nil {
		return nil, fmt.Errorf("browser: going to %s in history: %w", entry.URL, err)
	}
	n := &navigation{url: entry.URL, frame: main.ID, old: main.LoaderID, history: true, want: want}
	return n.result(ctx, s, events, entry.URL+" from history")
}

// mainFrame returns the tab's main frame as it is now.
func mainFrame(ctx context.Context, s cdpapi.Session) (*cdpapi.Frame, error) {
	tree, err := cdpapi.Call(ctx, s, page.GetFrameTree, cdpapi.Empty{})
	if err != nil {
		return nil, err
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return nil, errors.New("no main frame")
	}
	return tree.FrameTree.Frame, nil
}

// errorPageWait bounds the wait for the error page of a failed navigation.
const errorPageWait = 2 * time.Second

// awaitErrorPage waits, for errorPageWait at most, until the error page
// Chromium shows for a navigation that failed has loaded, so that the
// calls that follow see it, not the document it replaces. A navigation
// that fails answers before its error page commits, and the page commits
// in a process of its own: until it has loaded, commands may find the tab
// between processes.
func awaitErrorPage(ctx context.Context, events <-chan cdp.Event, frame cdpapi.FrameID, loader cdpapi.LoaderID) {
	ctx, cancel := context.WithTimeout(ctx, errorPageWait)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			var l page.EventLifecycleEvent
			if ev.Method == "Page.lifecycleEvent" && jsonv2.Unmarshal(ev.Params, &l) == nil &&
				l.FrameID == frame && l.LoaderID == loader && l.Name == "load" {
				return
			}
		}
	}
}

// navigation is one navigation of a main frame being waited for.
type navigation struct {
	url   string // for errors
	frame cdpapi.FrameID
	// loader is the new document's loader: known from Page.navigate, or
	// learned from the first "init" lifecycle event of a loader other than
	// old (reload, history).
	loader cdpapi.LoaderID
	old    cdpapi.LoaderID // the document before; its late events are ignored
	// sameDoc says the navigation may commit within the document
	// (Page.navigatedWithinDocument): a fragment change.
	sameDoc bool
	// history says it may commit within the document, or restore a page
	// from the back/forward cache, or load a document.
	history bool
	want    []string // lifecycle events of the new document that end the wait
}

// wait reads events until the navigation is done, and returns the HTTP
// status of its document (0 when it loaded none). A failed document
// request is a *NavigationError with Chromium's error text.
func (n *navigation) wait(ctx context.Context, events <-chan cdp.Event) (int, error) {
	status := make(map[cdpapi.LoaderID]int)
	docs := make(map[network.RequestID]cdpapi.LoaderID) // main-frame document requests
	seen := make(map[string]bool)
	for {
		var ev cdp.Event
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case e, ok := <-events:
			if !ok {
				return 0, cdp.ErrSessionClosed
			}
			ev = e
		}
		switch ev.Method {
		case "Network.requestWillBeSent":
			var r network.EventRequestWillBeSent
			if jsonv2.Unmarshal(ev.Params, &r) == nil && r.Type == network.ResourceTypeDocument && r.FrameID == n.frame {
				docs[r.RequestID] = r.LoaderID
			}
		case "Network.loadingFailed":
			var f network.EventLoadingFailed
			if jsonv2.Unmarshal(ev.Params, &f) != nil {
				continue
			}
			if l, ok := docs[f.RequestID]; ok && n.isNew(l) {
				if !f.Canceled {
					awaitErrorPage(ctx, events, n.frame, l)
				}
				return 0, &driver.NavigationError{URL: n.url, Text: f.ErrorText}
			}
		case "Network.responseReceived":
			var r network.EventResponseReceived
			if jsonv2.Unmarshal(ev.Params, &r) == nil && r.Type == network.ResourceTypeDocument && r.Response != nil {
				status[r.LoaderID] = int(r.Response.Status)
			}
		case "Page.navigatedWithinDocument":
			var d page.EventNavigatedWithinDocument
			if jsonv2.Unmarshal(ev.Params, &d) == nil && d.FrameID == n.frame &&
				(n.sameDoc || n.history && n.loader == "") {
				return 0, nil
			}
		case "Page.frameNavigated":
			var f page.EventFrameNavigated
			if jsonv2.Unmarshal(ev.Params, &f) == nil && f.Frame != nil && f.Frame.ID == n.frame &&
				n.history && f.Type == page.NavigationTypeBackForwardCacheRestore {
				return 0, nil // a restored page does not load again
			}
		case "Page.lifecycleEvent":
			var l page.EventLifecycleEvent
			if jsonv2.Unmarshal(ev.Params, &l) != nil || l.FrameID != n.frame {
				continue
			}
			if l.Name == "init" && n.isNew(l.LoaderID) {
				n.loader = l.LoaderID
			}
			if l.LoaderID != n.loader || n.loader == "" {
				continue
			}
			seen[l.Name] = true
			if !slices.ContainsFunc(n.want, func(name string) bool { return !seen[name] }) {
				if b, ok := ctx.Value(docLoadedKey{}).(*atomic.Bool); ok && seen["load"] {
					b.Store(true)
				}
				return status[n.loader], nil
			}
		}
	}
}

// docLoadedKey keys the *atomic.Bool on a navigation's context that
// navigation.wait sets when the wait ended on a new document's load event.
type docLoadedKey struct{}

// isNew reports whether loader l belongs to this navigation: it is the
// known loader, or, while that is still to be learned, any loader but the
// old document's.
func (n *navigation) isNew(l cdpapi.LoaderID) bool {
	if n.loader != "" {
		return l == n.loader
	}
	return !n.sameDoc && l != n.old
}
