package firefox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// downloadTable is a download table for unit tests: every context is
// owned by s.
func downloadTable(o Options, s *driver.Scope) *downloads {
	return newDownloads(&o, func(string) *driver.Scope { return s })
}

func began(d *downloads, context, nav, url, name string) {
	d.handle("browsingContext.downloadWillBegin", downloadEvent{Context: context, Navigation: &nav, URL: url, SuggestedFilename: name})
}

func ended(d *downloads, context, nav, url, status, path string) {
	p := downloadEvent{Context: context, Navigation: &nav, URL: url, Status: status}
	if path != "" {
		p.Filepath = &path
	}
	d.handle("browsingContext.downloadEnd", p)
}

// file writes n bytes into dir/name and returns its path.
func file(t *testing.T, dir, name string, n int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, make([]byte, n), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDownloadTable follows the download events as Firefox sends them:
// a download attribute's download may carry the id of the tab's last
// navigation, so an end is matched on the URL too; the limits apply when
// a download ends and remove its file.
func TestDownloadTable(t *testing.T) {
	dir := t.TempDir()
	s := driver.NewScope(nil)
	d := downloadTable(Options{DownloadMax: 200, DownloadFiles: 3, DownloadTotal: 150}, s)
	b := &Browser{downloads: d}

	began(d, "tab", "n1", "http://h/a.csv", "a.csv")
	began(d, "tab", "n1", "http://h/plain", "notes.txt") // the same navigation id
	ended(d, "tab", "n1", "http://h/plain", "complete", file(t, dir, "notes.txt", 10))
	ended(d, "tab", "n1", "http://h/a.csv", "complete", file(t, dir, "a.csv", 20))
	began(d, "tab", "n2", "http://h/big", "big.bin")
	ended(d, "tab", "n2", "http://h/big", "complete", file(t, dir, "big.bin", 201))
	began(d, "tab", "n3", "http://h/x", "x.bin")
	ended(d, "tab", "n3", "http://h/x", "canceled", "")
	began(d, "tab", "n4", "http://h/c", "c.bin")
	ended(d, "tab", "n4", "http://h/c", "complete", file(t, dir, "c.bin", 130)) // 160 bytes in all
	began(d, "tab", "n5", "http://h/d", "d.bin")                                // the third file
	began(d, "tab", "n6", "http://h/e", "e.bin")                                // a fourth
	ended(d, "tab", "n6", "http://h/e", "complete", file(t, dir, "e.bin", 1))
	ended(d, "tab", "n5", "http://h/d", "complete", file(t, dir, "d.bin", 1))

	var got []string
	for _, dl := range b.Downloads(s) {
		got = append(got, fmt.Sprintf("%d %s %s %d %q %v", dl.ID, dl.Name, dl.State, dl.Bytes, dl.Error, dl.Path != ""))
	}
	want := []string{
		`1 a.csv completed 20 "" true`,
		`2 notes.txt completed 10 "" true`,
		`3 big.bin refused 201 "over the 200-byte limit (CDPKIT_DOWNLOAD_MAX)" false`,
		`4 x.bin canceled 0 "canceled in the browser" false`,
		`5 c.bin refused 130 "the session's downloads would hold over 150 bytes, its limit" false`,
		`6 d.bin completed 1 "" true`,
		`7 e.bin refused 1 "the session keeps 3 downloads, its limit" false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("downloads:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{"big.bin", "c.bin", "e.bin"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s, refused, is still there (%v)", name, err)
		}
	}
	if got := b.Downloads(driver.NewScope(nil)); len(got) != 0 {
		t.Errorf("another scope sees %v", got)
	}
	if got := b.DownloadsSince(context.Background(), 5, "tab"); len(got) != 2 || got[0].Name != "d.bin" {
		t.Errorf("DownloadsSince(5) = %v, want d.bin and e.bin", got)
	}
}

// TestDownloadTableBounded keeps the last driver.DownloadsKept downloads.
func TestDownloadTableBounded(t *testing.T) {
	d := downloadTable(Options{DownloadFiles: 1000}, nil)
	for i := range driver.DownloadsKept + 50 {
		began(d, "tab", fmt.Sprint(i), "http://h/f", "f")
	}
	list := (&Browser{downloads: d}).Downloads(nil)
	if len(list) != driver.DownloadsKept || list[0].ID != 51 {
		t.Errorf("kept %d downloads from #%d, want %d from #51", len(list), list[0].ID, driver.DownloadsKept)
	}
}

// TestRefsRestored: a navigation that became a download gives the
// document its refs back, unless a ref was issued since it started.
func TestRefsRestored(t *testing.T) {
	r := newRefTable()
	e1 := r.ref("ctx n1")
	r.retire()
	r.restore()
	if _, err := r.lookup(e1); err != nil {
		t.Errorf("after restore, %s: %v", e1, err)
	}
	r.retire()
	r.ref("ctx n2") // the new document's
	r.restore()
	if _, err := r.lookup(e1); err == nil {
		t.Errorf("a ref of a document that was replaced resolves after restore")
	}
}
