package tools

import (
	"context"
	"errors"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

type listPagesArgs struct {
	All bool `json:"all,omitempty"`
}

type newPageArgs struct {
	URL        string `json:"url,omitempty"` // about:blank when empty
	Background bool   `json:"background,omitempty" jsonschema:"don't make it active"`
	Claim      bool   `json:"claim,omitempty" jsonschema:"also lease it"`
	Label      string `json:"label,omitempty" jsonschema:"lease label: one line of at most 128 characters"`
	TTLMs      int    `json:"ttlMs,omitempty" jsonschema:"lease ttl"`
}

type navigateArgs struct {
	URL         string `json:"url,omitempty"`
	Type        string `json:"type,omitempty" jsonschema:"url (default), back, forward, reload"`
	IgnoreCache bool   `json:"ignoreCache,omitempty" jsonschema:"for reload"`
	WaitUntil   string `json:"waitUntil,omitempty" jsonschema:"load (default), domcontentloaded or networkidle"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"ms"`
	actionArgs

	waitUntil driver.WaitUntil // parsed by check
}

type closePageArgs struct {
	Target string `json:"target" jsonschema:"tab to close: active, index:N, url:SUBSTR, title:SUBSTR or a tab id"`
}

type selectPageArgs struct {
	Target       string `json:"target" jsonschema:"tab id, pageId, index:N, url:X, title:X"`
	BringToFront bool   `json:"bringToFront,omitempty"`
}

func pageTools() []Tool {
	return []Tool{
		define(Tool{
			Name:        "list_pages",
			Description: "List tabs; all: workers too.",
			ReadOnly:    true,
			Idempotent:  true,
			Core:        true,
			Verbs:       []Verb{{Name: "tabs", Summary: "list open tabs", Rank: 9}},
		}, listPages),
		define(Tool{
			Name:        "new_page",
			Description: "Open a tab and load url; returns its pageId, url, title, status.",
			Core:        true,
		}, newPage),
		defineOn(Tool{
			Name:        "navigate_page",
			Description: "Load url, or go back, forward or reload, and wait. Returns url, title, HTTP status, changes.",
			// A dialog the old page shows does not stop a navigation
			// away from it; navigating recovers a crashed tab.
			Recovers: true, Dialog: DialogPasses, Changes: TryChanges, SaysWhere: true,
			Core: true,
			Verbs: []Verb{
				{Name: "open", Args: []string{"url"}, Summary: "go to a URL in the active tab", Rank: 1},
				{Name: "back", Fixed: map[string]any{"type": "back"}, Summary: "go back in history", Rank: 10},
				{Name: "forward", Fixed: map[string]any{"type": "forward"}, Summary: "go forward in history", Rank: 11},
				{Name: "reload", Fixed: map[string]any{"type": "reload"}, Summary: "reload the page", Rank: 12},
			},
		}, navigatePage),
		defineOn(Tool{
			Name:        "select_page",
			Description: "Make a tab the active one (the default target).",
			Idempotent:  true,
			NoQueue:     true,
			Recovers:    true, Dialog: DialogPasses, Core: true,
		}, selectPage),
		defineOn(Tool{
			Name:        "close_page",
			Description: "Close a tab. Returns the open tabs left and which is active.",
			Destructive: true,
			NoQueue:     true,
			Recovers:    true, Dialog: DialogPasses,
		}, closePage),
	}
}

func listPages(ctx context.Context, env *Env, in listPagesArgs) (*Result, error) {
	b, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, err
	}
	reaped := env.reap(ctx, b)
	pages, err := b.PagesIn(ctx, env.Scope)
	if err != nil {
		return nil, err
	}
	rows := env.withOrigins(ctx, b, pages)
	ids, err := env.pageIDs(b)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].PageID = ids[rows[i].ID]
	}
	data := map[string]any{"pages": rows}
	if in.All {
		wl, ok := b.(driver.WorkerLister)
		if !ok {
			return nil, errorf(Unsupported, false, "drop all: this browser lists tabs only", "this browser cannot list workers")
		}
		workers, err := wl.Workers(ctx, env.Scope)
		if err != nil {
			return nil, err
		}
		data["workers"] = append([]driver.Worker{}, workers...) // [] rather than null when none
	}
	if len(reaped) > 0 {
		data["reaped"] = reaped
	}
	return &Result{Data: data}, nil
}

type pageResult struct {
	PageID int    `json:"pageId,omitempty"` // see pageid.go
	ID     string `json:"id,omitempty"`
	*driver.NavResult
	Active bool           `json:"active"`
	Dialog *driver.Dialog `json:"dialog,omitempty"` // one the page opened while it loaded
	// The lease new_page took (claim, or strict mode): the token, and
	// whether it is an auto lease (its owner passes without the token).
	Lease     string `json:"lease,omitempty"`
	Auto      bool   `json:"auto,omitempty"`
	ExpiresAt int64  `json:"expiresAt,omitempty"`
}

// dialogStop turns a navigation that a dialog of the new page stopped
// (err) into a result saying where the tab is; the dialog waits for
// handle_dialog.
func dialogStop(ctx context.Context, tab driver.TabDriver, err error) (*driver.NavResult, error) {
	loc, lerr := tab.Location(ctx)
	if lerr != nil {
		return nil, err
	}
	return &driver.NavResult{URL: loc.URL, Title: loc.Title}, nil
}

func (in *newPageArgs) check(_ context.Context, env *Env) error {
	if in.Claim || in.Label != "" || in.TTLMs != 0 {
		if in.Claim {
			if err := env.needLeases(); err != nil {
				return err
			}
		}
		if err := checkLabel(in.Label); err != nil {
			return err
		}
		_, err := env.checkTTL(in.TTLMs)
		return err
	}
	return nil
}

func newPage(ctx context.Context, env *Env, in newPageArgs) (*Result, error) {
	if in.URL != "" {
		in.URL = policy.CompleteURL(in.URL)
		if err := env.checkURL(ctx, in.URL); err != nil {
			return nil, err
		}
	}
	b, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, err
	}
	tab, err := b.NewTab(ctx, &driver.TabOptions{Background: in.Background, Scope: env.Scope})
	if err != nil {
		return nil, err
	}
	res := pageResult{ID: tab.ID(), Active: !in.Background}
	if ids, err := env.pageIDs(b); err == nil {
		res.PageID = ids[tab.ID()]
	}
	// Leased before it loads anything, so no other agent drives it first.
	if err := env.leaseNewTab(ctx, b, tab, in, &res); err != nil {
		return nil, err
	}
	nav := &driver.NavResult{URL: "about:blank"}
	if in.URL != "" && in.URL != "about:blank" {
		progress(ctx, "loading")
		if nav, err = tab.Navigate(ctx, in.URL); errors.As(err, new(*driver.DialogOpenError)) {
			nav, err = dialogStop(ctx, tab, err)
		}
		if err != nil {
			return nil, err
		}
	}
	res.NavResult, res.Dialog = nav, tab.DialogNote()
	return &Result{Data: res}, nil
}

type navigateResult struct {
	*driver.NavResult
	changedIfAny
}

// check refuses bad arguments before any browser work.
func (in *navigateArgs) check(ctx context.Context, env *Env) error {
	if in.Type == "" {
		in.Type = "url"
	}
	switch in.Type {
	case "url":
		if in.URL == "" {
			return errorf(InvalidArgs, false, "give url, or type back, forward or reload", "url is required to navigate to a url")
		}
		in.URL = policy.CompleteURL(in.URL) // localhost:3000 as an address bar reads it
		if err := env.checkURL(ctx, in.URL); err != nil {
			return err
		}
	case "back", "forward", "reload":
		if in.URL != "" {
			return errorf(InvalidArgs, false, "drop url, or use type url", "url does not go with type %s", in.Type)
		}
	default:
		return errorf(InvalidArgs, false, "type is url, back, forward or reload", "unknown type %q", in.Type)
	}
	if in.IgnoreCache && in.Type != "reload" {
		return errorf(InvalidArgs, false, "ignoreCache goes with type reload", "ignoreCache does not go with type %s", in.Type)
	}
	if in.Timeout < 0 {
		return errorf(InvalidArgs, false, "give a timeout in ms, or none for the call's limit", "timeout %d is negative", in.Timeout)
	}
	var err error
	in.waitUntil, err = driver.ParseWaitUntil(in.WaitUntil)
	return err
}

func navigatePage(ctx context.Context, env *Env, d *door, in navigateArgs) (*Result, error) {
	tab := d.tab
	navCtx := ctx
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		navCtx, cancel = context.WithTimeout(ctx, time.Duration(in.Timeout)*time.Millisecond)
		defer cancel()
	}
	opts := &driver.NavOptions{WaitUntil: in.waitUntil}
	progress(ctx, "loading")
	var nav *driver.NavResult
	var err error
	switch in.Type {
	case "url":
		nav, err = tab.NavigateWith(navCtx, in.URL, opts)
	case "back":
		nav, err = tab.GoBack(navCtx, opts)
	case "forward":
		nav, err = tab.GoForward(navCtx, opts)
	case "reload":
		nav, err = tab.Reload(navCtx, in.IgnoreCache, opts)
	}
	if nav == nil && errors.As(err, new(*driver.DialogOpenError)) {
		// The new page opened a dialog while it loaded: the result says
		// where the tab is, and changes.dialog what waits for an answer.
		nav, err = dialogStop(ctx, tab, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, errorf(Timeout, true, "the page may still be usable: take a snapshot, or retry with waitUntil domcontentloaded or a larger timeout; "+hungHint,
			"the page did not reach %s in time", in.waitUntil)
	}
	if err != nil {
		return nil, err
	}
	// The registry reads the changes next; the navigation happened even
	// if the page cannot be read now, and the result says so.
	progress(ctx, "loaded; reading the changes")
	return &Result{Data: &navigateResult{NavResult: nav}}, nil
}

func (in *selectPageArgs) check(context.Context, *Env) error {
	if in.Target == "" {
		return errorf(InvalidArgs, false, "call list_pages to see the tabs", "target is required")
	}
	return nil
}

func selectPage(ctx context.Context, env *Env, d *door, in selectPageArgs) (*Result, error) {
	b, tab := d.b, d.tab
	if err := tab.MakeActive(ctx, in.BringToFront); err != nil {
		return nil, err
	}
	pages, err := b.PagesIn(ctx, env.Scope)
	if err != nil {
		return nil, err
	}
	numbered, err := env.numbered(b, pages)
	if err != nil {
		return nil, err
	}
	for _, p := range numbered {
		if p.ID == tab.ID() {
			return &Result{Data: p}, nil
		}
	}
	return nil, &driver.TargetNotFoundError{Selector: in.Target, Open: len(pages)}
}

type closeResult struct {
	Closed       string         `json:"closed"`
	ClosedPageID int            `json:"closedPageId,omitempty"`
	Pages        []numberedPage `json:"pages"`
	Note         string         `json:"note,omitempty"`
}

func (in *closePageArgs) check(context.Context, *Env) error {
	if in.Target == "" {
		return errorf(InvalidArgs, false, "use target active to close the active tab", "target is required")
	}
	return nil
}

func closePage(ctx context.Context, env *Env, d *door, in closePageArgs) (*Result, error) {
	b, tab := d.b, d.tab
	before, err := env.pageIDs(b)
	if err != nil {
		return nil, err
	}
	if err := tab.Close(ctx); err != nil {
		return nil, err
	}
	env.dropLease(ctx, b, tab.ID())
	pages, err := b.PagesIn(ctx, env.Scope)
	if err != nil {
		return nil, err
	}
	numbered, err := env.numbered(b, pages)
	if err != nil {
		return nil, err
	}
	res := closeResult{Closed: tab.ID(), ClosedPageID: before[tab.ID()], Pages: numbered}
	if len(pages) == 0 {
		res.Note = "that was the last tab; new_page opens one"
	}
	return &Result{Data: res}, nil
}
