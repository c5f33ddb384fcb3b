package browser

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Downloads: with Options.DownloadDir set, every browser context saves
// downloads there (a scope with a DownloadDir of its own, in its own
// context, saves them there instead), under a temporary guid name, and the
// browser's download events fill a table. A finished file is renamed to
// its suggested name (made safe and unique); one over Options.DownloadMax
// is cancelled and its partial file removed. Each session (scope) may keep
// DownloadFiles downloads (in progress or saved) of DownloadTotal bytes in
// all: a page cannot fill the disk with many files under the per-file cap.

// Download states (driver's, the same on every backend).
const (
	DownloadInProgress = driver.DownloadInProgress
	DownloadCompleted  = driver.DownloadCompleted
	DownloadCanceled   = driver.DownloadCanceled
	DownloadRefused    = driver.DownloadRefused
)

// downloadUse is what one session's downloads hold.
type downloadUse struct {
	files int   // begun and not cancelled: in progress or kept
	bytes int64 // received by those
}

// downloads is a browser's download table.
type downloads struct {
	dir        string
	max        int64
	maxFiles   int
	maxTotal   int64
	ownerOfTab func(target.ID) *driver.Scope // never called with mu held
	log        interface {
		Debug(string, ...any)
	}
	sess *cdp.Session

	mu      sync.Mutex
	list    []*driver.Download            // guarded by mu; oldest first
	byGUID  map[string]*driver.Download   // guarded by mu
	next    int                           // guarded by mu
	changed chan struct{}                 // guarded by mu; closed and replaced on every change
	dirs    map[string]*driver.Scope      // guarded by mu; the scopes' own dirs
	use     map[*driver.Scope]downloadUse // guarded by mu
	// contexts are the isolated scopes' browser contexts, which a
	// download's cancel must name; guarded by mu.
	contexts map[*driver.Scope]cdpapi.BrowserContextID
}

// startDownloads makes the default context save downloads into dir and
// follows the browser's download events. The context bounds the setup.
func (b *Browser) startDownloads(ctx context.Context, o *Options) error {
	dir := o.DownloadDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("browser: making the downloads dir: %w", err)
	}
	d := &downloads{dir: dir, max: cmp.Or(max(o.DownloadMax, 0), driver.DefaultDownloadMax), maxFiles: cmp.Or(max(o.DownloadFiles, 0), driver.DefaultDownloadFiles),
		maxTotal: cmp.Or(max(o.DownloadTotal, 0), driver.DefaultDownloadTotal), ownerOfTab: b.ownerOf, log: b.log, sess: b.conn.Browser(),
		byGUID: map[string]*driver.Download{}, changed: make(chan struct{}), dirs: map[string]*driver.Scope{}, use: map[*driver.Scope]downloadUse{},
		contexts: map[*driver.Scope]cdpapi.BrowserContextID{}}
	events, stop := d.sess.SubscribeEvents("Browser.downloadWillBegin", "Browser.downloadProgress")
	if err := d.allow(ctx, "", nil); err != nil {
		stop()
		return err
	}
	b.downloads = d
	go func() {
		defer stop()
		for ev := range events {
			d.handle(ev)
		}
	}()
	return nil
}

// allow sets the download behaviour of a browser context ("" is the
// default one): its downloads go to s's own dir, if it has one, else to
// the browser's.
func (d *downloads) allow(ctx context.Context, bctx cdpapi.BrowserContextID, s *driver.Scope) error {
	dir := d.dir
	if s != nil {
		d.mu.Lock()
		d.contexts[s] = bctx
		d.mu.Unlock()
	}
	if s != nil && s.DownloadDir() != "" {
		dir = s.DownloadDir()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("browser: making the session's downloads dir: %w", err)
		}
		d.mu.Lock()
		d.dirs[dir] = s
		d.mu.Unlock()
	}
	yes := true
	if _, err := cdpapi.Call(ctx, d.sess, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: bctx, DownloadPath: dir, EventsEnabled: &yes,
	}); err != nil {
		return fmt.Errorf("browser: allowing downloads: %w", err)
	}
	return nil
}

// forget drops what d keeps for an ended scope.
func (d *downloads) forget(s *driver.Scope) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.use, s)
	delete(d.contexts, s)
	for dir, o := range d.dirs {
		if o == s {
			delete(d.dirs, dir)
		}
	}
}

func (d *downloads) handle(ev cdp.Event) {
	var begun cdpbrowser.EventDownloadWillBegin
	var owner *driver.Scope
	if ev.Method == "Browser.downloadWillBegin" {
		if jsonv2.Unmarshal(ev.Params, &begun) != nil {
			return
		}
		owner = d.ownerOfTab(target.ID(begun.FrameID))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch ev.Method {
	case "Browser.downloadWillBegin":
		p := &begun
		d.next++
		dl := &driver.Download{ID: d.next, URL: cut(p.URL, netURLChars), Name: safeName(p.SuggestedFilename), State: DownloadInProgress, Frame: string(p.FrameID), GUID: p.GUID, Owner: owner}
		d.list = append(d.list, dl)
		d.byGUID[p.GUID] = dl
		if len(d.list) > driver.DownloadsKept {
			delete(d.byGUID, d.list[0].GUID)
			d.list = d.list[1:]
		}
		use := d.use[owner]
		if use.files >= d.maxFiles {
			dl.State, dl.Error = DownloadRefused, fmt.Sprintf("the session keeps %d downloads, its limit", d.maxFiles)
			go d.cancel(p.GUID)
			break
		}
		use.files++
		d.use[owner] = use
	case "Browser.downloadProgress":
		var p cdpbrowser.EventDownloadProgress
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			return
		}
		dl := d.byGUID[p.GUID]
		if dl == nil || dl.State != DownloadInProgress {
			return
		}
		use := d.use[dl.Owner]
		use.bytes += int64(p.ReceivedBytes) - dl.Bytes
		dl.Bytes = int64(p.ReceivedBytes)
		over := func(state, why string) {
			dl.State, dl.Error = state, why
			use.files-- // its file is removed
			use.bytes -= dl.Bytes
		}
		switch {
		case int64(p.ReceivedBytes) > d.max || int64(p.TotalBytes) > d.max:
			over(DownloadRefused, fmt.Sprintf("over the %d-byte limit (CDPKIT_DOWNLOAD_MAX)", d.max))
			go d.cancel(p.GUID)
		case use.bytes > d.maxTotal || use.bytes-dl.Bytes+int64(p.TotalBytes) > d.maxTotal:
			over(DownloadRefused, fmt.Sprintf("the session's downloads would hold over %d bytes, its limit", d.maxTotal))
			go d.cancel(p.GUID)
		case p.State == cdpbrowser.DownloadProgressStateCompleted:
			dl.State = DownloadCompleted
			if path, err := d.place(p.GUID, dl.Name); err != nil {
				over(DownloadCanceled, "saving it: "+err.Error())
			} else {
				dl.Path, dl.Name = path, filepath.Base(path)
			}
		case p.State == cdpbrowser.DownloadProgressStateCanceled:
			over(DownloadCanceled, "")
			d.removePartial(p.GUID)
		}
		d.use[dl.Owner] = use
		if dl.State == DownloadInProgress {
			return
		}
	default:
		return
	}
	close(d.changed)
	d.changed = make(chan struct{})
}

// cancel stops a download over a limit and removes what it wrote. It
// names the download's browser context: without it, Chromium looks for
// the download in the default context only, and one of an isolated
// session ran to its end.
func (d *downloads) cancel(guid string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var bctx cdpapi.BrowserContextID
	d.mu.Lock()
	if dl := d.byGUID[guid]; dl != nil {
		bctx = d.contexts[dl.Owner]
	}
	d.mu.Unlock()
	if _, err := cdpapi.Call(ctx, d.sess, cdpbrowser.CancelDownload, cdpbrowser.CancelDownloadParams{GUID: guid, BrowserContextID: bctx}); err != nil {
		d.log.Debug("cancelling a download over a limit", "err", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.removePartial(guid)
}

// dirOf returns the dir a download's guid file is in (a scope's own dir,
// else the browser's). d.mu is held.
func (d *downloads) dirOf(guid string) string {
	for dir := range d.dirs {
		if _, err := os.Lstat(filepath.Join(dir, guid)); err == nil {
			return dir
		}
	}
	return d.dir
}

// removePartial removes a download's guid file. d.mu is held.
func (d *downloads) removePartial(guid string) {
	os.Remove(filepath.Join(d.dirOf(guid), guid))
}

// place renames a finished download from its guid to name, made unique
// in its dir. d.mu is held.
func (d *downloads) place(guid, name string) (string, error) {
	dir := d.dirOf(guid)
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(dir, n)
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		return p, os.Rename(filepath.Join(dir, guid), p)
	}
	return "", fmt.Errorf("too many files named %s", name)
}

// safeName makes a suggested file name safe to create: its base name,
// without control characters or separators, not hidden, at most 120
// characters.
func safeName(s string) string {
	s = filepath.Base(strings.ReplaceAll(s, `\`, "/"))
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, s)
	s = strings.TrimLeft(strings.TrimSpace(s), ".")
	if r := []rune(s); len(r) > 120 {
		s = string(r[len(r)-120:])
	}
	if s == "" {
		s = "download"
	}
	return s
}

// Downloads returns the downloads the tabs of s began (nil s: every
// tab), oldest first (of the browser's last 200). It is empty when
// downloads are not enabled.
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
			out = append(out, *dl)
		}
	}
	return out
}

// DownloadMark returns a mark for [Browser.DownloadsSince]: the last
// download's id.
func (b *Browser) DownloadMark() int {
	d := b.downloads
	if d == nil {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.next
}

// DownloadsSince returns the downloads the main frame of tab tabID began after mark,
// once they have finished or ctx is done (then as they are).
//
// When the tab's last action looked like it set off a download that has
// not begun yet, it first waits for it to begin (downloads_begin.go).
func (b *Browser) DownloadsSince(ctx context.Context, mark int, tabID string) []driver.Download {
	d := b.downloads
	if d == nil {
		return nil
	}
	b.awaitDownloadBegin(ctx, mark, tabID)
	for {
		d.mu.Lock()
		var out []driver.Download
		pending := false
		for _, dl := range d.list {
			if dl.ID > mark && dl.Frame == tabID {
				out = append(out, *dl)
				pending = pending || dl.State == DownloadInProgress
			}
		}
		changed := d.changed
		d.mu.Unlock()
		if !pending {
			return out
		}
		select {
		case <-ctx.Done():
			return out
		case <-changed:
		}
	}
}
