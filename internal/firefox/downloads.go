package firefox

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Downloads, as on Chromium (internal/browser/downloads.go): with
// Options.DownloadDir set, browser.setDownloadBehavior makes Firefox save
// every download there (an isolated scope with a DownloadDir of its own
// saves into that, set on its user context), and the
// browsingContext.downloadWillBegin and downloadEnd events fill a table
// of the last driver.DownloadsKept. Firefox names the file itself (the
// suggested name, made safe, "name(1).ext" when taken).
//
// BiDi reports no progress and has no command to cancel a download, so
// the limits (Options.DownloadMax per file, DownloadFiles and
// DownloadTotal per session) are applied when a download ends: one over
// a limit is reported refused and its file removed then, where Chromium
// stops it as soon as it crosses the limit.
const (
	// downloadBeginWait bounds DownloadsSince's wait for a download that a
	// click on a download link set off to begin.
	downloadBeginWait = 3 * time.Second
)

// downloadEvents are the BiDi events the table follows.
var downloadEvents = []string{"browsingContext.downloadWillBegin", "browsingContext.downloadEnd"}

// downloadUse is what one session's downloads hold.
type downloadUse struct {
	files int   // begun and not refused or cancelled: in progress or kept
	bytes int64 // held by the completed ones
}

// downloads is a browser's download table.
type downloads struct {
	max      int64
	maxFiles int
	maxTotal int64
	// ownerOf returns the scope owning a browsing context's tab; never
	// called with mu held.
	ownerOf func(context string) *driver.Scope

	mu      sync.Mutex
	list    []*download                   // guarded by mu; oldest first
	next    int                           // guarded by mu
	changed chan struct{}                 // guarded by mu; closed and replaced on every change
	use     map[*driver.Scope]downloadUse // guarded by mu
}

// download is one row of the table: GUID is the navigation Firefox
// named, Frame the browsing context that began it.
type download struct {
	driver.Download
	ended bool // downloadEnd came
}

func newDownloads(o *Options, ownerOf func(string) *driver.Scope) *downloads {
	return &downloads{max: cmp.Or(max(o.DownloadMax, 0), driver.DefaultDownloadMax),
		maxFiles: cmp.Or(max(o.DownloadFiles, 0), driver.DefaultDownloadFiles), maxTotal: cmp.Or(max(o.DownloadTotal, 0), driver.DefaultDownloadTotal),
		ownerOf: ownerOf, changed: make(chan struct{}), use: map[*driver.Scope]downloadUse{}}
}

// startDownloads follows the download events, and with
// Options.DownloadDir set makes Firefox save downloads there and keeps
// the table. A download that a navigation became also ends that
// navigation for an action's wait (no load follows it), and gives the
// tab back its refs. A Firefox that knows neither the events nor the
// command (older than BiDi's downloads) runs without a table. ctx bounds
// the setup.
func (b *Browser) startDownloads(ctx context.Context) error {
	var d *downloads
	off := func() {}
	if b.o.DownloadDir != "" {
		d = newDownloads(&b.o, b.ownerOfContext)
		// The table is updated first: the action's wait ends on the
		// navigation's end, and its changes then read the table.
		off = b.conn.On(func(e bidi.Event) {
			var p downloadEvent
			if json.Unmarshal(e.Params, &p) == nil {
				d.handle(e.Method, p)
			}
		}, downloadEvents...)
	}
	b.conn.On(func(e bidi.Event) {
		var p downloadEvent
		if json.Unmarshal(e.Params, &p) != nil {
			return
		}
		b.mu.Lock()
		t := b.tabs[p.Context]
		b.mu.Unlock()
		if t != nil && p.Navigation != nil {
			t.stayed(*p.Navigation)
		}
		b.onNavigation(e)
	}, "browsingContext.downloadWillBegin")
	err := b.conn.Subscribe(ctx, downloadEvents...)
	if err == nil && d != nil {
		err = b.allowDownloads(ctx, "", b.o.DownloadDir)
	}
	if ce := (*bidi.CommandError)(nil); errors.As(err, &ce) {
		b.o.logger().Warn("firefox: downloads are not tracked: this Firefox does not support them over BiDi", "err", err)
		off()
		return nil
	}
	if err != nil {
		off()
		return err
	}
	b.downloads = d
	return nil
}

// allowDownloads makes Firefox save the downloads of a user context (""
// for every one without its own) into dir.
func (b *Browser) allowDownloads(ctx context.Context, userContext, dir string) error {
	dir, err := filepath.Abs(dir) // Firefox wants an absolute path
	if err != nil {
		return fmt.Errorf("firefox: the downloads dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("firefox: making the downloads dir: %w", err)
	}
	p := map[string]any{"downloadBehavior": map[string]any{"type": "allowed", "destinationFolder": dir}}
	if userContext != "" {
		p["userContexts"] = []string{userContext}
	}
	if err := b.conn.Call(ctx, "browser.setDownloadBehavior", p, nil); err != nil {
		return fmt.Errorf("firefox: allowing downloads: %w", err)
	}
	return nil
}

// allowScopeDownloads gives an isolated scope's user context the scope's
// own downloads dir, when downloads are on and it has one.
func (b *Browser) allowScopeDownloads(ctx context.Context, userContext string, s *driver.Scope) error {
	if b.downloads == nil || s == nil || s.DownloadDir() == "" {
		return nil
	}
	return b.allowDownloads(ctx, userContext, s.DownloadDir())
}

// ownerOfContext returns the scope owning the tab a browsing context
// (a tab or a frame in one) belongs to.
func (b *Browser) ownerOfContext(id string) *driver.Scope {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := 0; i < 64; i++ { // frames nest; a cycle cannot happen, but stay bounded
		p, ok := b.parents[id]
		if !ok {
			break
		}
		id = p
	}
	return b.owner[id]
}

// downloadEvent is the part of a download event cdpkit reads.
type downloadEvent struct {
	Context           string  `json:"context"`
	Navigation        *string `json:"navigation"`
	URL               string  `json:"url"`
	SuggestedFilename string  `json:"suggestedFilename"`
	Status            string  `json:"status"`
	Filepath          *string `json:"filepath"`
}

// stayed undoes what the start of navigation nav did to the tab, now
// that it became a download: the document, its refs and its URL stay.
func (t *Tab) stayed(nav string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if nav == "" || nav != t.startedNav {
		return
	}
	t.startedNav = ""
	t.curURL = t.prevURL
	t.refs.restore()
}

// handle updates the table from a download event. It runs on the
// connection's reader and does not block but for removing a file over a
// limit.
func (d *downloads) handle(method string, p downloadEvent) {
	var nav string
	if p.Navigation != nil {
		nav = *p.Navigation
	}
	url := cutTo(p.URL, netURLChars)
	var owner *driver.Scope
	if method == "browsingContext.downloadWillBegin" {
		owner = d.ownerOf(p.Context)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch method {
	case "browsingContext.downloadWillBegin":
		d.next++
		name := p.SuggestedFilename
		if name == "" {
			name = "download"
		}
		dl := &download{Download: driver.Download{ID: d.next, URL: url, Name: name, State: driver.DownloadInProgress, Frame: p.Context, GUID: nav, Owner: owner}}
		d.list = append(d.list, dl)
		if len(d.list) > driver.DownloadsKept {
			d.list = d.list[1:]
		}
		use := d.use[owner]
		if use.files >= d.maxFiles {
			// Firefox saves it all the same: its file goes when it ends.
			dl.State, dl.Error = driver.DownloadRefused, fmt.Sprintf("the session keeps %d downloads, its limit", d.maxFiles)
			break
		}
		use.files++
		d.use[owner] = use
	case "browsingContext.downloadEnd":
		// Firefox may give a download attribute's download the id of the
		// tab's last navigation: match the URL too, the oldest first.
		var dl *download
		for _, c := range d.list {
			if !c.ended && c.Frame == p.Context && c.GUID == nav && c.URL == url {
				dl = c
				break
			}
		}
		if dl == nil {
			return
		}
		d.ended(dl, p)
	default:
		return
	}
	close(d.changed)
	d.changed = make(chan struct{})
}

// ended records how dl ended, removing a file over a limit. d.mu is
// held.
func (d *downloads) ended(dl *download, p downloadEvent) {
	dl.ended = true
	refusedAtBegin := dl.State == driver.DownloadRefused
	if p.Status != "complete" || p.Filepath == nil || *p.Filepath == "" {
		if !refusedAtBegin {
			dl.State, dl.Error = driver.DownloadCanceled, "canceled in the browser"
			d.drop(dl.Owner)
		}
		return
	}
	path := *p.Filepath
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	dl.Bytes = size
	if refusedAtBegin {
		os.Remove(path)
		return
	}
	use := d.use[dl.Owner]
	switch {
	case size > d.max:
		dl.State, dl.Error = driver.DownloadRefused, fmt.Sprintf("over the %d-byte limit (CDPKIT_DOWNLOAD_MAX)", d.max)
	case use.bytes+size > d.maxTotal:
		dl.State, dl.Error = driver.DownloadRefused, fmt.Sprintf("the session's downloads would hold over %d bytes, its limit", d.maxTotal)
	default:
		dl.State, dl.Path, dl.Name = driver.DownloadCompleted, path, filepath.Base(path)
		use.bytes += size
		d.use[dl.Owner] = use
		return
	}
	os.Remove(path)
	d.drop(dl.Owner)
}

// drop takes a file that is not kept off its session's count. d.mu is
// held.
func (d *downloads) drop(s *driver.Scope) {
	use := d.use[s]
	use.files = max(use.files-1, 0)
	d.use[s] = use
}

// forget drops what d keeps for an ended scope.
func (d *downloads) forget(s *driver.Scope) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.use, s)
}

// navigationDownloaded says whether navigation nav of tab became a
// download. Firefox sends downloadWillBegin before it answers the
// navigate command.
func (b *Browser) navigationDownloaded(tab, nav string) bool {
	d := b.downloads
	if d == nil || nav == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.list) - 1; i >= 0; i-- {
		if dl := d.list[i]; dl.Frame == tab && dl.GUID == nav {
			return true
		}
	}
	return false
}

// Downloads implements driver.DownloadLog: the downloads the tabs of s
// began (nil s: every tab), oldest first (of the browser's last 200).
// It is empty when downloads are not enabled.
func (b *Browser) Downloads(s *driver.Scope) []driver.Download {
	d := b.downloads
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]driver.Download, 0, len(d.list))
	for _, dl := range d.list {
		if s == nil || dl.Owner == s {
			out = append(out, dl.Download)
		}
	}
	return out
}

// DownloadMark implements driver.DownloadLog: the last download's id.
func (b *Browser) DownloadMark() int {
	d := b.downloads
	if d == nil {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.next
}

// DownloadsSince implements driver.DownloadLog: the downloads the main
// frame of tab tabID began after mark, once they have ended or ctx is
// done (then as they are). When the tab's last click was on a download
// link and no download has begun yet, it first waits (at most
// downloadBeginWait) for one to begin.
func (b *Browser) DownloadsSince(ctx context.Context, mark int, tabID string) []driver.Download {
	d := b.downloads
	if d == nil {
		return nil
	}
	b.mu.Lock()
	t := b.tabs[tabID]
	b.mu.Unlock()
	waitBegin := t != nil && t.downloadLink.Swap(false)
	bctx, cancel := context.WithTimeout(ctx, downloadBeginWait)
	defer cancel()
	for {
		d.mu.Lock()
		var out []driver.Download
		pending := false
		for _, dl := range d.list {
			if dl.ID > mark && dl.Frame == tabID {
				out = append(out, dl.Download)
				pending = pending || dl.State == driver.DownloadInProgress
			}
		}
		changed := d.changed
		d.mu.Unlock()
		wait := ctx
		if len(out) == 0 && waitBegin {
			wait = bctx
		} else if !pending {
			return out
		}
		select {
		case <-wait.Done():
			return out
		case <-changed:
		}
	}
}
