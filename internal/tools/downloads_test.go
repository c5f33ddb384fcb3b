package tools

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// TestDownloads checks that a click that downloads saves the file under
// the artifact dir's downloads/ and reports it in changes, and that one
// over the limit is refused, removed and reported.
func TestDownloads(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>files</title><a id=small href="/file/report.csv">report</a> <a id=big href="/file/big.bin">big</a>`)
	})
	mux.HandleFunc("/file/", func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		w.Header().Set("Content-Type", "application/octet-stream")
		if name == "big.bin" {
			w.Write(make([]byte, 256<<10))
			return
		}
		io.WriteString(w, "id,name\n1,ada\n")
	})
	site := browsertest.ServerHandler(t, mux).URL

	env := downloadingEnv(t, browser.Options{DownloadMax: 100 << 10})
	artifacts := env.Artifacts

	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site))
	d := mustRun(t, env, "click", `{"selector":"#small"}`)
	dls, _ := jsonPath(d, "changes.downloads").([]any)
	if len(dls) != 1 {
		t.Fatalf("click's changes.downloads = %v, want the one download", jsonPath(d, "changes"))
	}
	dl := dls[0].(map[string]any)
	path := fmt.Sprint(dl["path"])
	if dl["state"] != "completed" || dl["name"] != "report.csv" || !strings.HasPrefix(path, filepath.Join(artifacts.Dir(), "downloads")+string(filepath.Separator)) {
		t.Errorf("download = %v, want report.csv completed under the artifact dir's downloads/", dl)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "id,name\n1,ada\n" {
		t.Errorf("downloaded file: %q, %v", data, err)
	}

	d = mustRun(t, env, "click", `{"selector":"#big"}`)
	dls, _ = jsonPath(d, "changes.downloads").([]any)
	if len(dls) != 1 || dls[0].(map[string]any)["state"] != "refused" || !strings.Contains(fmt.Sprint(dls[0]), "CDPKIT_DOWNLOAD_MAX") {
		t.Fatalf("the oversize download: changes %v, want it refused", jsonPath(d, "changes"))
	}
	netEventually(t, "the partial file removed", func() bool {
		entries, _ := os.ReadDir(filepath.Join(artifacts.Dir(), "downloads"))
		return len(entries) == 1
	})
	list := mustRun(t, env, "list_downloads", `{}`)
	if n := len(list["downloads"].([]any)); n != 2 {
		t.Errorf("list_downloads lists %d, want 2: %v", n, list)
	}
}

// downloadingEnv is an Env with a browser of its own (downloads need a
// download dir, set at launch) that saves downloads into the artifact
// dir's downloads/, with o's other options.
func downloadingEnv(t *testing.T, o browser.Options) *Env {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	o.ExecPath, o.Logger, o.DownloadDir = browsertest.ExecPath(t), log, filepath.Join(artifacts.Dir(), "downloads")
	browsers := driver.NewManager(browser.NewManager(&o).Backend(), nil)
	t.Cleanup(func() {
		if err := browsers.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	return &Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: 30 * time.Second}
}
