package tools

import (
	"context"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// maxChangesChars bounds the elements part of a changes section.
const maxChangesChars = 1500

// settleTime bounds the wait for the page to render after an action.
const settleTime = 500 * time.Millisecond

// before is what a state-changing tool notes before it acts, so that its
// result can say what changed.
type before struct {
	b     driver.Driver
	tab   driver.TabDriver
	scope *driver.Scope // the tab's owner; the tabs listed are its own
	loc   driver.Location
	pages map[string]driver.Page
	dl    int // the browser's download mark
	// now is where the tool's own result says the tab is, read as it
	// ended (see toolLocation); nil means read it again.
	now *driver.Location
}

// observe records the tab's location and the open tabs. With urlOnly
// (a tool whose result says where the tab is, so the changes report no
// title) the title is not needed (see beforeLocation).
func observe(ctx context.Context, b driver.Driver, tab driver.TabDriver, urlOnly bool) (*before, error) {
	driver.Step(ctx, "reading the tab's state")
	loc, err := beforeLocation(ctx, tab, urlOnly)
	if err != nil {
		return nil, err
	}
	scope := tab.Scope()
	pages, err := b.PagesNow(scope)
	if err != nil {
		return nil, err
	}
	o := &before{b: b, tab: tab, scope: scope, loc: loc, pages: make(map[string]driver.Page)}
	if dl, ok := b.(driver.DownloadLog); ok {
		o.dl = dl.DownloadMark()
	}
	for _, p := range pages {
		o.pages[p.ID] = p
	}
	return o, nil
}

// Changes is the section every state-changing tool adds to its result.
type Changes struct {
	URL        string        `json:"url,omitempty"`   // the new URL, when it changed
	Title      string        `json:"title,omitempty"` // the new title, when it changed
	Navigated  bool          `json:"navigated,omitempty"`
	TabsOpened []driver.Page `json:"tabsOpened,omitempty"`
	TabsClosed []string      `json:"tabsClosed,omitempty"`
	// TabsRefused are tabs the page opened past the session's tab limit
	// (--max-tabs-per-session), which were closed at once.
	TabsRefused     []driver.RefusedTab `json:"tabsRefused,omitempty"`
	TabsRefusedHint string              `json:"tabsRefusedHint,omitempty"`
	// Elements lists interactive elements added (+), removed (-) or
	// changed (~) since the agent's last snapshot of this tab, cut at
	// maxChangesChars with a count of the rest.
	Elements string `json:"elements,omitempty"`
	// Messages are what the page told the user in response: new or
	// changed text of alert, status and log regions, aria-live regions
	// and <output> (`alert "Please choose a size"`), cut at
	// maxMessagesChars.
	Messages []string `json:"messages,omitempty"`
	// OnlyMessage says the action's one visible effect was a message:
	// nothing else changed but focus.
	OnlyMessage bool `json:"onlyMessage,omitempty"`
	// Dialog is a JavaScript dialog: one that waits for handle_dialog
	// (handled "open"), or the last one answered without the agent (an
	// alert, beforeunload, or by the --dialogs policy).
	Dialog *driver.Dialog `json:"dialog,omitempty"`
	// Blocked is a navigation the page started by itself (a link, a
	// script, a form, a meta refresh) that the URL policy refused: the
	// tab shows the browser's error page for it, and nothing loaded.
	Blocked *BlockedNavigation `json:"blocked,omitempty"`
	// Downloads are the files the action downloaded into the artifact
	// dir's downloads/, or why one was refused.
	Downloads []driver.Download `json:"downloads,omitempty"`
	// FileChooser is a file picker the action opened: give it files with
	// upload_file on its ref.
	FileChooser *FileChooserNote `json:"fileChooser,omitempty"`
}

// changesHolder is the data of a result whose tool reports changes (see
// Tool.Changes): the door fills its changes section after the handler
// returns it. Such data embeds changed or changedIfAny, behind a pointer,
// or is a changesMap.
type changesHolder interface {
	setChanges(c *Changes)
	changes() *Changes
}

// changed is the changes section of a result's data, there even when it
// could not be read (null).
type changed struct {
	Changes *Changes `json:"changes"`
}

func (s *changed) setChanges(c *Changes) { s.Changes = c }
func (s *changed) changes() *Changes     { return s.Changes }

// changedIfAny is a changes section left out of the data when it could
// not be read (a tool that only tries, see TryChanges).
type changedIfAny struct {
	Changes *Changes `json:"changes,omitempty"`
}

func (s *changedIfAny) setChanges(c *Changes) { s.Changes = c }
func (s *changedIfAny) changes() *Changes     { return s.Changes }

// changesMap is a result's data as a JSON object whose "changes" member
// the door fills.
type changesMap map[string]any

func (m changesMap) setChanges(c *Changes) { m["changes"] = c }

func (m changesMap) changes() *Changes {
	c, _ := m["changes"].(*Changes)
	return c
}

// FileChooserNote is a file picker an action opened.
type FileChooserNote struct {
	*driver.FileChooser
	Hint string `json:"hint"`
}

// BlockedNavigation is a page-initiated navigation the URL policy refused.
type BlockedNavigation struct {
	Code   Code   `json:"code"` // URL_BLOCKED
	URL    string `json:"url"`
	Reason string `json:"reason"`
	Hint   string `json:"hint,omitempty"`
}

// blockedNavigation turns the tab's unreported guard refusal into the
// changes entry, or nil.
func blockedNavigation(tab driver.TabDriver) *BlockedNavigation {
	b := tab.BlockNote()
	if b == nil {
		return nil
	}
	e := AsError(b)
	return &BlockedNavigation{Code: URLBlocked, URL: b.URL, Reason: e.Message, Hint: e.Hint}
}

// changesSince waits briefly for the page to settle, then reports what
// changed since o. With full set it returns the whole interactive snapshot
// instead of the element diff (includeSnapshot).
func (o *before) changesSince(ctx context.Context, full bool) (*Changes, error) {
	driver.Step(ctx, "reading what changed")
	settle(ctx, o.tab)
	c := &Changes{Downloads: downloadsSince(ctx, o)}
	// Where the tab is now is asked before its tree, so that snapshotOf
	// can tell a document replaced while the tree was read, but its answer
	// is not waited for before the tree is asked for.
	ahead := driver.Ahead(ctx, o.location)
	defer ahead()
	located := func() (driver.Location, error) {
		loc, err := ahead()
		if err == nil {
			o.noteLocation(c, loc)
		}
		return loc, err
	}
	noted := func() error { _, err := located(); return err }
	pages, err := o.b.PagesNow(o.scope)
	if err != nil {
		return nil, err
	}
	now := make(map[string]bool)
	for _, p := range pages {
		now[p.ID] = true
		if _, ok := o.pages[p.ID]; !ok {
			c.TabsOpened = append(c.TabsOpened, p)
		}
	}
	for id := range o.pages {
		if !now[id] {
			c.TabsClosed = append(c.TabsClosed, id)
		}
	}
	// The new tabs' URLs and titles, once they have them.
	o.settleOpened(ctx, c)
	noteRefusedTabs(o, c)
	if !now[string(o.tab.ID())] {
		return c, nil // the tab itself closed: there is nowhere to read
	}
	if up, ok := o.tab.(driver.Uploader); !ok {
	} else if fc, err := up.FileChooser(ctx); err == nil && fc != nil {
		hint := "call upload_file with the input's uid and the files"
		if fc.Ref != "" {
			hint = "call upload_file with uid " + fc.Ref + " and the files"
		}
		c.FileChooser = &FileChooserNote{FileChooser: fc, Hint: hint}
	}
	if c.Dialog = o.tab.DialogNote(); c.Dialog != nil && c.Dialog.Handled == driver.DialogOpen {
		return c, noted() // the page can be read only once the dialog is answered
	}
	res, diff, err := o.snapshotOf(ctx, located, c)
	if err != nil {
		return nil, err
	}
	// A new document: the tab went elsewhere, or a tool that loads pages
	// (navigate_page, which says where it went) loaded one, the same URL
	// or a reload included, and none of the old page's elements is left.
	newDoc := (c.Navigated || o.now != nil) && diff.Kept == 0 && len(diff.Removed)+len(diff.Added) > 0
	if !newDoc {
		c.Messages, diff = messagesOf(diff)
		c.OnlyMessage = len(c.Messages) > 0 && !c.Navigated && len(c.TabsOpened)+len(c.TabsClosed)+len(c.Downloads) == 0 &&
			onlyFocus(diff)
	}
	switch {
	case full:
		c.Elements = res.Text
	case newDoc:
		// A new document: its elements are news, the old page's are not.
		diff.Removed = nil
		c.Elements = newDocumentSummary(diff)
	default:
		diff.DropBlurred() // the field the action left (issue 39)
		c.Elements = diff.Text(maxChangesChars)
	}
	return c, nil
}

// maxMessagesChars bounds the messages of one action's changes.
const maxMessagesChars = 600

// messagesOf takes the message regions' lines out of diff's added and
// changed lines (see snapshot.Message), without refs, at most
// maxMessagesChars of them.
func messagesOf(diff snapshot.Changes) ([]string, snapshot.Changes) {
	var msgs []string
	size := 0
	take := func(lines []string) []string {
		var keep []string
		for _, l := range lines {
			m, ok := snapshot.Message(l)
			if !ok {
				keep = append(keep, l)
				continue
			}
			if size += len(m); size <= maxMessagesChars {
				msgs = append(msgs, m)
			}
		}
		return keep
	}
	diff.Changed = take(diff.Changed)
	diff.Added = take(diff.Added)
	return msgs, diff
}

// onlyFocus reports whether diff holds nothing but elements whose focus
// changed.
func onlyFocus(diff snapshot.Changes) bool {
	if len(diff.Added)+len(diff.Removed) > 0 {
		return false
	}
	for _, l := range diff.Changed {
		if !strings.HasSuffix(l, " focused") {
			return false
		}
	}
	return true
}

// noteLocation sets c's URL, title and navigation from the tab's location
// now, and a navigation the URL policy refused.
func (o *before) noteLocation(c *Changes, loc driver.Location) {
	c.URL, c.Title, c.Navigated = "", "", false
	if loc.URL != o.loc.URL {
		c.URL, c.Navigated = loc.URL, true
	}
	if loc.Title != o.loc.Title {
		c.Title = loc.Title
	}
	if c.Blocked == nil {
		c.Blocked = blockedNavigation(o.tab)
	}
	if c.Blocked != nil && c.Navigated && loc.URL == c.Blocked.URL {
		// The tab shows the browser's error page for the refused URL: it
		// went nowhere.
		c.URL, c.Title, c.Navigated = "", "", false
	}
}

// docSwapWait bounds the wait for a document that replaced the one being
// read to finish loading.
const docSwapWait = 2 * time.Second

// snapshotOf reads the tab's interactive snapshot and its diff; located
// returns where the tab was before the read (asked for first) and notes it
// in c. If the document was replaced while it was read (the URL is no
// longer that: a navigation the action set off late, such as after a
// fetch), it waits for the new document to load and reads again, and notes
// the navigation in c: refs of a document that is going away are never
// handed out.
func (o *before) snapshotOf(ctx context.Context, located func() (driver.Location, error), c *Changes) (snapshot.Result, snapshot.Changes, error) {
	opts := driver.SnapshotOptions{Options: snapshot.Options{Interactive: true}}
	res, diff, err := o.tab.SnapshotDiff(ctx, opts)
	loc, lerr := located()
	if err != nil {
		return res, diff, err
	}
	if lerr != nil {
		return res, diff, lerr
	}
	st, err := o.tab.DocumentState(ctx)
	if err != nil || st.URL == loc.URL {
		return res, diff, nil
	}
	driver.Step(ctx, "waiting for the document that replaced the page")
	wctx, cancel := context.WithTimeout(ctx, docSwapWait)
	defer cancel()
	for st.ReadyState != "complete" && wctx.Err() == nil {
		o.tab.Settle(wctx, settleTime)
		if st, err = o.tab.DocumentState(wctx); err != nil {
			break
		}
	}
	if now, err := o.tab.Location(ctx); err == nil {
		o.noteLocation(c, now)
	}
	return o.tab.SnapshotDiff(ctx, opts)
}

// settle waits, bounded by settleTime, for the page to render what it
// did in reaction to an action (see driver.TabDriver.Settle).
func settle(ctx context.Context, tab driver.TabDriver) { tab.Settle(ctx, settleTime) }

// downloadWait bounds how long an action's result waits for the downloads
// it began to finish; a longer one is reported in progress.
const downloadWait = 10 * time.Second

// downloadsSince returns the downloads the tab began since o, once
// finished (bounded by downloadWait).
func downloadsSince(ctx context.Context, o *before) []driver.Download {
	dl, ok := o.b.(driver.DownloadLog)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, downloadWait)
	defer cancel()
	return dl.DownloadsSince(ctx, o.dl, o.tab.ID())
}
