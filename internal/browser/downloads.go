package browser

import (
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

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// Downloads: with Options.DownloadDir set, every browser context saves
// downloads there (under a temporary guid name), and the browser's
// download events fill a table. A finished file is renamed to its
// suggested name (made safe and unique); one over Options.DownloadMax is
// cancelled and its partial file removed.
const (
	// DefaultDownloadMax caps a download when Options.DownloadMax is 0.
	DefaultDownloadMax = 100 << 20
	// downloadsKept bounds the table.
	downloadsKept = 200
)

// Download states.
const (
	DownloadInProgress = "in_progress"
	DownloadCompleted  = "completed"
	DownloadCanceled   = "canceled"
	DownloadRefused    = "refused"
)

// Download is one download the browser began.
type Download struct {
	ID    int    `json:"id"`
	URL   string `json:"url"`
	Name  string `json:"name"`           // the file's name
	Path  string `json:"path,omitempty"` // where it is, once completed
	Bytes int64  `json:"bytes"`
	State string `json:"state"`
	Error string `json:"error,omitempty"` // why it was refused or canceled
	Frame string `json:"-"`
	guid  string
}

// downloads is a browser's download table.
type downloads struct {
	dir string
	max int64
	log interface {
		Debug(string, ...any)
	}
	sess *cdp.Session

	mu      sync.Mutex
	list    []*Download          // guarded by mu; oldest first
	byGUID  map[string]*Download // guarded by mu
	next    int                  // guarded by mu
	changed chan struct{}        // guarded by mu; closed and replaced on every change
}

// startDownloads makes the default context save downloads into dir and
// follows the browser's download events. The context bounds the setup.
func (b *Browser) startDownloads(ctx context.Context, dir string, max int64) error {
	if max <= 0 {
		max = DefaultDownloadMax
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("browser: making the downloads dir: %w", err)
	}
	d := &downloads{dir: dir, max: max, log: b.log, sess: b.conn.Browser(), byGUID: map[string]*Download{}, changed: make(chan struct{})}
	events, stop := d.sess.SubscribeEvents("Browser.downloadWillBegin", "Browser.downloadProgress")
	if err := d.allow(ctx, ""); err != nil {
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
// default one).
func (d *downloads) allow(ctx context.Context, bctx cdpapi.BrowserContextID) error {
	yes := true
	if _, err := cdpapi.Call(ctx, d.sess, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: bctx, DownloadPath: d.dir, EventsEnabled: &yes,
	}); err != nil {
		return fmt.Errorf("browser: allowing downloads: %w", err)
	}
	return nil
}

func (d *downloads) handle(ev cdp.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch ev.Method {
	case "Browser.downloadWillBegin":
		var p cdpbrowser.EventDownloadWillBegin
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			return
		}
		d.next++
		dl := &Download{ID: d.next, URL: cut(p.URL, netURLChars), Name: safeName(p.SuggestedFilename), State: DownloadInProgress, Frame: string(p.FrameID), guid: p.GUID}
		d.list = append(d.list, dl)
		d.byGUID[p.GUID] = dl
		if len(d.list) > downloadsKept {
			delete(d.byGUID, d.list[0].guid)
			d.list = d.list[1:]
		}
	case "Browser.downloadProgress":
		var p cdpbrowser.EventDownloadProgress
		if jsonv2.Unmarshal(ev.Params, &p) != nil {
			return
		}
		dl := d.byGUID[p.GUID]
		if dl == nil || dl.State != DownloadInProgress {
			return
		}
		dl.Bytes = int64(p.ReceivedBytes)
		switch {
		case int64(p.ReceivedBytes) > d.max || int64(p.TotalBytes) > d.max:
			dl.State, dl.Error = DownloadRefused, fmt.Sprintf("over the %d-byte limit (CDPKIT_DOWNLOAD_MAX)", d.max)
			go d.cancel(p.GUID)
		case p.State == cdpbrowser.DownloadProgressStateCompleted:
			dl.State = DownloadCompleted
			if path, err := d.place(p.GUID, dl.Name); err != nil {
				dl.State, dl.Error = DownloadCanceled, "saving it: "+err.Error()
			} else {
				dl.Path, dl.Name = path, filepath.Base(path)
			}
		case p.State == cdpbrowser.DownloadProgressStateCanceled:
			dl.State = DownloadCanceled
			os.Remove(filepath.Join(d.dir, p.GUID))
		default:
			return
		}
	default:
		return
	}
	close(d.changed)
	d.changed = make(chan struct{})
}

// cancel stops a download over the limit and removes what it wrote.
func (d *downloads) cancel(guid string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cdpapi.Call(ctx, d.sess, cdpbrowser.CancelDownload, cdpbrowser.CancelDownloadParams{GUID: guid}); err != nil {
		d.log.Debug("cancelling an oversize download", "err", err)
	}
	os.Remove(filepath.Join(d.dir, guid))
}

// place renames a finished download from its guid to name, made unique
// in the dir. d.mu is held.
func (d *downloads) place(guid, name string) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(d.dir, n)
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		return p, os.Rename(filepath.Join(d.dir, guid), p)
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

// Downloads returns the downloads the browser began, oldest first (the
// last 200). It is empty when downloads are not enabled.
func (b *Browser) Downloads() []Download {
	d := b.downloads
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Download, 0, len(d.list))
	for _, dl := range d.list {
		out = append(out, *dl)
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
func (b *Browser) DownloadsSince(ctx context.Context, mark int, tabID string) []Download {
	d := b.downloads
	if d == nil {
		return nil
	}
	b.awaitDownloadBegin(ctx, mark, tabID)
	for {
		d.mu.Lock()
		var out []Download
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
