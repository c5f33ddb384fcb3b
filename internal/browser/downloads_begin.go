package browser

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/target"
)

// An action that sets off a download learns of it late: Chromium reports
// Browser.downloadWillBegin from the browser process once the response
// has come, on its own schedule, after the page's events that end the
// action (a navigation that stopped without a document) or with none at
// all (a link with a download attribute starts no navigation). An action
// whose input looks like one (noteUncommitted, noteDownloadLink) marks
// its tab, and DownloadsSince then waits for the download to begin.

// downloadBeginWait bounds the wait for a download an action set off to
// begin; a server slower than that to answer shows it in list_downloads
// later.
const downloadBeginWait = 3 * time.Second

// noteUncommitted marks the tab when the navigation a saw stopped
// without a document, as a navigation that became a download does.
func (t *Tab) noteUncommitted(a *actionWatch) {
	if a.uncommitted() {
		t.downloading.Store(true)
	}
}

// awaitDownloadBegin waits, when the last action of tab tabID was marked,
// at most downloadBeginWait (and ctx) for a download of that tab after
// mark to begin, and clears the mark.
func (b *Browser) awaitDownloadBegin(ctx context.Context, mark int, tabID string) {
	d := b.downloads
	b.mu.Lock()
	t := b.tabs[target.ID(tabID)]
	b.mu.Unlock()
	if d == nil || t == nil || !t.downloading.Swap(false) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, downloadBeginWait)
	defer cancel()
	for {
		d.mu.Lock()
		begun := false
		for _, dl := range d.list {
			begun = begun || (dl.ID > mark && dl.Frame == tabID)
		}
		changed := d.changed
		d.mu.Unlock()
		if begun {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}
