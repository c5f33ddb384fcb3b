package tools

import (
	"context"
	"errors"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
)

type listPagesArgs struct{}

type newPageArgs struct {
	URL        string `json:"url,omitempty" jsonschema:"URL to open; about:blank when empty"`
	Background bool   `json:"background,omitempty" jsonschema:"open it behind: the active tab stays active"`
}

type navigateArgs struct {
	URL         string `json:"url,omitempty" jsonschema:"http(s) URL or about:blank"`
	Type        string `json:"type,omitempty" jsonschema:"url (default), back, forward, reload"`
	IgnoreCache bool   `json:"ignoreCache,omitempty" jsonschema:"reload bypassing the cache"`
	WaitUntil   string `json:"waitUntil,omitempty" jsonschema:"load (default), domcontentloaded or networkidle"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"ms (default: the call's limit)"`
	actionArgs
}

type closePageArgs struct {
	Target string `json:"target" jsonschema:"tab to close: active, index:N, url:SUBSTR, title:SUBSTR or a tab id"`
}

type selectPageArgs struct {
	Target       string `json:"target" jsonschema:"tab to make active: index:N, url:SUBSTR, title:SUBSTR or a tab id"`
	BringToFront bool   `json:"bringToFront,omitempty" jsonschema:"also show it in front (a tab behind others renders no animation frames)"`
}

func pageTools() []Tool {
	return []Tool{
		define(Tool{
			Name:        "list_pages",
			Description: "List open tabs with id, index, url, title and which is active.",
			ReadOnly:    true,
			Idempotent:  true,
		}, listPages),
		define(Tool{
			Name:        "new_page",
			Description: "Open a new tab, active unless background, and load url if given. Returns its id, final url, title and HTTP status.",
		}, newPage),
		define(Tool{
			Name: "navigate_page",
			Description: "Load a URL, or go back, forward or reload, and wait for the load (or waitUntil). " +
				"Returns the final url, title, HTTP status and changes.",
		}, navigatePage),
		define(Tool{
			Name:        "select_page",
			Description: "Make a tab the active one, which tools act on by default.",
			Idempotent:  true,
			NoQueue:     true,
		}, selectPage),
		define(Tool{
			Name:        "close_page",
			Description: "Close a tab. Returns the open tabs left and which is active.",
			Destructive: true,
			NoQueue:     true,
		}, closePage),
	}
}

func listPages(ctx context.Context, env *Env, _ listPagesArgs) (*Result, error) {
	b, err := env.Browsers.Browser(ctx)
	if err != nil {
		return nil, err
	}
	pages, err := b.PagesIn(ctx, env.Scope)
	if err != nil {
		return nil, err
	}
	if pages == nil {
		pages = []browser.Page{}
	}
	return &Result{Data: map[string]any{"pages": pages}}, nil
}

type pageResult struct {
	ID string `json:"id,omitempty"`
	*browser.NavResult
	Active bool            `json:"active"`
	Dialog *browser.Dialog `json:"dialog,omitempty"` // one the page opened while it loaded
}

// dialogStop turns a navigation that a dialog of the new page stopped
// (err) into a result saying where the tab is; the dialog waits for
// handle_dialog.
func dialogStop(ctx context.Context, tab *browser.Tab, err error) (*browser.NavResult, error) {
	loc, lerr := tab.Location(ctx)
	if lerr != nil {
		return nil, err
	}
	return &browser.NavResult{URL: loc.URL, Title: loc.Title}, nil
}

func newPage(ctx context.Context, env *Env, in newPageArgs) (*Result, error) {
	if in.URL != "" {
		if err := env.checkURL(ctx, in.URL); err != nil {
			return nil, err
		}
	}
	b, err := env.Browsers.Browser(ctx)
	if err != nil {
		return nil, err
	}
	tab, err := b.OpenTab(ctx, &browser.TabOptions{Background: in.Background, Scope: env.Scope})
	if err != nil {
		return nil, err
	}
	nav := &browser.NavResult{URL: "about:blank"}
	if in.URL != "" && in.URL != "about:blank" {
		progress(ctx, "loading")
		if nav, err = tab.Navigate(ctx, in.URL); errors.As(err, new(*browser.DialogOpenError)) {
			nav, err = dialogStop(ctx, tab, err)
		}
		if err != nil {
			return nil, err
		}
	}
	return &Result{Data: pageResult{ID: string(tab.ID()), NavResult: nav, Active: !in.Background, Dialog: tab.DialogNote()}}, nil
}

type navigateResult struct {
	*browser.NavResult
	Changes *Changes `json:"changes,omitempty"`
}

func navigatePage(ctx context.Context, env *Env, in navigateArgs) (*Result, error) {
	kind := in.Type
	if kind == "" {
		kind = "url"
	}
	switch kind {
	case "url":
		if in.URL == "" {
			return nil, errorf(InvalidArgs, false, "give url, or type back, forward or reload", "url is required to navigate to a url")
		}
		if err := env.checkURL(ctx, in.URL); err != nil {
			return nil, err
		}
	case "back", "forward", "reload":
		if in.URL != "" {
			return nil, errorf(InvalidArgs, false, "drop url, or use type url", "url does not go with type %s", kind)
		}
	default:
		return nil, errorf(InvalidArgs, false, "type is url, back, forward or reload", "unknown type %q", in.Type)
	}
	if in.IgnoreCache && kind != "reload" {
		return nil, errorf(InvalidArgs, false, "ignoreCache goes with type reload", "ignoreCache does not go with type %s", kind)
	}
	if in.Timeout < 0 {
		return nil, errorf(InvalidArgs, false, "give a timeout in ms, or none for the call's limit", "timeout %d is negative", in.Timeout)
	}
	wait, err := browser.ParseWaitUntil(in.WaitUntil)
	if err != nil {
		return nil, err
	}
	b, tab, err := useTab(mayRecover(ctx), env, in.Target)
	if err != nil {
		return nil, err
	}
	// A crashed tab has no page to observe; navigating recovers it.
	var o *before
	if tab.CheckCrashed() == nil {
		if o, err = observe(ctx, b, tab); err != nil {
			return nil, err
		}
	}

	navCtx := ctx
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		navCtx, cancel = context.WithTimeout(ctx, time.Duration(in.Timeout)*time.Millisecond)
		defer cancel()
	}
	opts := &browser.NavOptions{WaitUntil: wait}
	progress(ctx, "loading")
	var nav *browser.NavResult
	switch kind {
	case "url":
		nav, err = tab.NavigateWith(navCtx, in.URL, opts)
	case "back":
		nav, err = tab.GoBack(navCtx, opts)
	case "forward":
		nav, err = tab.GoForward(navCtx, opts)
	case "reload":
		nav, err = tab.Reload(navCtx, in.IgnoreCache, opts)
	}
	if nav == nil && errors.As(err, new(*browser.DialogOpenError)) {
		// The new page opened a dialog while it loaded: the result says
		// where the tab is, and changes.dialog what waits for an answer.
		nav, err = dialogStop(ctx, tab, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, errorf(Timeout, true, "the page may still be usable: take a snapshot, or retry with waitUntil domcontentloaded or a larger timeout",
			"the page did not reach %s in time", wait)
	}
	if err != nil {
		return nil, err
	}
	progress(ctx, "loaded; reading the changes")
	var c *Changes
	if o != nil {
		c, err = o.changesSince(ctx, in.IncludeSnapshot)
	}
	if o == nil || err != nil {
		// The navigation happened; say so even if the page cannot be
		// read now.
		env.Log.Debug("navigate_page: reading the changes", "err", err)
		c = nil
	} else {
		// The result says where the tab is now; say it once.
		c.URL, c.Title, c.Navigated = "", "", false
	}
	return &Result{Data: navigateResult{NavResult: nav, Changes: c}}, nil
}

func selectPage(ctx context.Context, env *Env, in selectPageArgs) (*Result, error) {
	if in.Target == "" {
		return nil, errorf(InvalidArgs, false, "call list_pages to see the tabs", "target is required")
	}
	b, tab, err := useTab(mayRecover(ctx), env, in.Target)
	if err != nil {
		return nil, err
	}
	if in.BringToFront {
		err = b.Activate(ctx, tab)
	} else {
		b.Select(tab)
	}
	if err != nil {
		return nil, err
	}
	pages, err := b.PagesIn(ctx, env.Scope)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		if p.ID == tab.ID() {
			return &Result{Data: p}, nil
		}
	}
	return nil, &browser.TargetNotFoundError{Selector: in.Target, Open: len(pages)}
}

type closeResult struct {
	Closed string         `json:"closed"`
	Pages  []browser.Page `json:"pages"`
	Note   string         `json:"note,omitempty"`
}

func closePage(ctx context.Context, env *Env, in closePageArgs) (*Result, error) {
	if in.Target == "" {
		return nil, errorf(InvalidArgs, false, "use target active to close the active tab", "target is required")
	}
	b, tab, err := useTab(mayRecover(ctx), env, in.Target)
	if err != nil {
		return nil, err
	}
	if err := b.CloseTab(ctx, tab); err != nil {
		return nil, err
	}
	pages, err := b.PagesIn(ctx, env.Scope)
	if err != nil {
		return nil, err
	}
	res := closeResult{Closed: string(tab.ID()), Pages: pages}
	if len(pages) == 0 {
		res.Pages = []browser.Page{}
		res.Note = "that was the last tab; new_page opens one"
	}
	return &Result{Data: res}, nil
}
