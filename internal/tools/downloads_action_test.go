package tools

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// downloadEnv is an Env whose browser saves downloads under its artifact
// dir, and a site whose /file/NAME answers an attachment.
func downloadEnv(t *testing.T) (*Env, string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		fmt.Fprint(w, `<title>files</title><a id=get href="/file/`+n+`.csv">report</a> <a id=attr download href="/file/`+n+`-a.csv">report</a>`)
	})
	mux.HandleFunc("/file/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="`+filepath.Base(r.URL.Path)+`"`)
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, "id,name\n1,ada\n")
	})
	site := browsertest.ServerHandler(t, mux).URL
	return downloadingEnv(t, browser.Options{DownloadMax: 100 << 10}), site
}

// TestDownloadInClickResult clicks a link that downloads, ten times: each
// download is in that click's result and in list_downloads right after.
// Before, one in two was missing from both and showed one action later.
func TestDownloadInClickResult(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a race reproduction, ten runs")
	}
	t.Parallel()
	env, site := downloadEnv(t)
	for i := range 10 {
		// Half by navigation to an attachment, half by a link's download
		// attribute, which starts no navigation at all.
		sel, want := "#get", fmt.Sprintf("r%d.csv", i)
		if i%2 == 1 {
			sel, want = "#attr", fmt.Sprintf("r%d-a.csv", i)
		}
		mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":"%s/?n=r%d"}`, site, i))
		d := mustRun(t, env, "click", fmt.Sprintf(`{"selector":%q}`, sel))
		dls, _ := jsonPath(d, "changes.downloads").([]any)
		if len(dls) != 1 || dls[0].(map[string]any)["name"] != want {
			t.Errorf("run %d: click's changes = %v, want the download %s", i, jsonPath(d, "changes"), want)
		}
		list := mustRun(t, env, "list_downloads", `{}`)
		if !strings.Contains(fmt.Sprint(list["downloads"]), want) {
			t.Errorf("run %d: list_downloads = %v, want %s", i, list, want)
		}
	}
}

// TestNavigateToDownload navigates straight to a file the server sends as
// an attachment: the result reports the download, not NAVIGATION_FAILED.
func TestNavigateToDownload(t *testing.T) {
	t.Parallel()
	env, site := downloadEnv(t)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":"%s/?n=x"}`, site))
	d := mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":"%s/file/direct.csv"}`, site))
	dls, _ := jsonPath(d, "changes.downloads").([]any)
	if d["download"] != true || len(dls) != 1 || dls[0].(map[string]any)["name"] != "direct.csv" {
		t.Errorf("navigate_page to a download = %v, want download: true and the file in changes.downloads", d)
	}
}
