package tools

import (
	"context"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// actionArgs are the arguments every state-changing tool takes besides
// its own: the tab, and whether to return a snapshot instead of changes.
type actionArgs struct {
	IncludeSnapshot bool   `json:"includeSnapshot,omitempty" jsonschema:"full snapshot, not changes"`
	Target          string `json:"target,omitempty"`
}

// elementArgs name the element a tool acts on: a ref, or a selector.
type elementArgs struct {
	UID      string `json:"uid,omitempty" jsonschema:"element ref (e12)"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector, instead of uid"`
}

// maxChangesChars bounds the elements part of a changes section.
const maxChangesChars = 1500

// settleTime bounds the wait for the page to render after an action.
const settleTime = 500 * time.Millisecond

// before is what a state-changing tool notes before it acts, so that its
// result can say what changed.
type before struct {
	b     *browser.Browser
	tab   *browser.Tab
	scope *browser.Scope // the tab's owner; the tabs listed are its own
	loc   browser.Location
	pages map[string]browser.Page
}

// observe records the tab's location and the open tabs.
func observe(ctx context.Context, b *browser.Browser, tab *browser.Tab) (*before, error) {
	browser.Step(ctx, "reading the tab's state")
	loc, err := tab.Location(ctx)
	if err != nil {
		return nil, err
	}
	scope := b.ScopeOf(tab)
	pages, err := b.PagesIn(ctx, scope)
	if err != nil {
		return nil, err
	}
	o := &before{b: b, tab: tab, scope: scope, loc: loc, pages: make(map[string]browser.Page)}
	for _, p := range pages {
		o.pages[string(p.ID)] = p
	}
	return o, nil
}

// Changes is the section every state-changing tool adds to its result.
type Changes struct {
	URL        string         `json:"url,omitempty"`   // the new URL, when it changed
	Title      string         `json:"title,omitempty"` // the new title, when it changed
	Navigated  bool           `json:"navigated,omitempty"`
	TabsOpened []browser.Page `json:"tabsOpened,omitempty"`
	TabsClosed []string       `json:"tabsClosed,omitempty"`
	// Elements lists interactive elements added (+), removed (-) or
	// changed (~) since the agent's last snapshot of this tab, cut at
	// maxChangesChars with a count of the rest.
	Elements string `json:"elements,omitempty"`
	// Dialog is a JavaScript dialog: one that waits for handle_dialog
	// (handled "open"), or the last one answered without the agent (an
	// alert, beforeunload, or by the --dialogs policy).
	Dialog *browser.Dialog `json:"dialog,omitempty"`
}

// changesSince waits briefly for the page to settle, then reports what
// changed since o. With full set it returns the whole interactive snapshot
// instead of the element diff (includeSnapshot).
func (o *before) changesSince(ctx context.Context, full bool) (*Changes, error) {
	browser.Step(ctx, "reading what changed")
	settle(ctx, o.tab)
	c := &Changes{}
	loc, err := o.tab.Location(ctx)
	if err != nil {
		return nil, err
	}
	if loc.URL != o.loc.URL {
		c.URL, c.Navigated = loc.URL, true
	}
	if loc.Title != o.loc.Title {
		c.Title = loc.Title
	}
	pages, err := o.b.PagesIn(ctx, o.scope)
	if err != nil {
		return nil, err
	}
	now := make(map[string]bool)
	for _, p := range pages {
		now[string(p.ID)] = true
		if _, ok := o.pages[string(p.ID)]; !ok {
			c.TabsOpened = append(c.TabsOpened, p)
		}
	}
	for id := range o.pages {
		if !now[id] {
			c.TabsClosed = append(c.TabsClosed, id)
		}
	}
	if !now[string(o.tab.ID())] {
		return c, nil // the tab itself closed
	}
	if c.Dialog = o.tab.DialogNote(); c.Dialog != nil && c.Dialog.Handled == browser.DialogOpen {
		return c, nil // the page can be read only once the dialog is answered
	}
	opts := browser.SnapshotOptions{Options: snapshot.Options{Interactive: true}}
	res, diff, err := o.tab.SnapshotDiff(ctx, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case full:
		c.Elements = res.Text
	case c.Navigated && diff.Kept == 0 && len(diff.Removed) > 0:
		// A new document: its elements are news, the old page's are not.
		diff.Removed = nil
		c.Elements = diff.Text(maxChangesChars)
	default:
		c.Elements = diff.Text(maxChangesChars)
	}
	return c, nil
}

// settle waits, bounded by settleTime, for the page to render what it
// did in reaction to an action (see browser.Tab.Settle).
func settle(ctx context.Context, tab *browser.Tab) { tab.Settle(ctx, settleTime) }
