package tools

import (
	"context"
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
	"github.com/cdpkit/cdpkit/internal/firefox"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// downloadSite serves a page of download links for ?n=NAME: #get
// navigates to an attachment, #attr is a link with a download attribute
// to a plain page (no navigation at all), and /file/NAME answers an
// attachment (/file/big.bin one of 256 KiB).
func downloadSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		fmt.Fprintf(w, `<title>files</title><a id=get href="/file/%s.csv">report</a> <a id=attr download href="/plain/%s-a.txt">notes</a>`, n, n)
	})
	mux.HandleFunc("/file/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="`+filepath.Base(r.URL.Path)+`"`)
		w.Header().Set("Content-Type", "application/octet-stream")
		if filepath.Base(r.URL.Path) == "big.bin" {
			w.Write(make([]byte, 256<<10))
			return
		}
		io.WriteString(w, "id,name\n1,ada\n")
	})
	mux.HandleFunc("/plain/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "plain notes\n")
	})
	return browsertest.ServerHandler(t, mux).URL
}

// backendDownloadEnv is an Env with a browser of the backend of its own
// that saves downloads into the artifact dir's downloads/ (a session's
// into its own, see Env.Scoped), as cdpkit's commands start it, and
// refuses a download over 100 KiB.
func backendDownloadEnv(t *testing.T, backend string) *Env {
	t.Helper()
	const max = 100 << 10
	if backend == BackendChromium {
		return downloadingEnv(t, browser.Options{DownloadMax: max})
	}
	exe := browsertest.FirefoxPath(t)
	log := slog.New(slog.DiscardHandler)
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	browsers := driver.NewManager(firefox.NewBackend(&firefox.Options{ExecPath: exe, Logger: log, LaunchTimeout: 2 * time.Minute,
		DownloadDir: filepath.Join(artifacts.Dir(), "downloads"), DownloadMax: max}), nil)
	t.Cleanup(func() {
		if err := browsers.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	return &Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: 2 * time.Minute}
}

// downloadHarness is a harness on a browser of the backend of its own
// whose downloads are on (backendDownloadEnv), in the unscoped view.
func downloadHarness(t *testing.T, backend string) *harness {
	t.Helper()
	logs := &logBuffer{}
	env := backendDownloadEnv(t, backend)
	env.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	env.AllowEval = true
	return &harness{env: env, logs: logs}
}

// session is env.Scoped(true, 0), closed when the test ends.
func session(t *testing.T, env *Env) *Env {
	s, closeScope := env.Scoped(true, 0)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		closeScope(ctx)
	})
	return s
}

// checkDownload checks that a result's changes.downloads is the one
// completed download name, saved under the session's artifact dir with
// the content the site sent, and returns it.
func checkDownload(t *testing.T, env *Env, what string, res map[string]any, name, content string) map[string]any {
	t.Helper()
	dls, _ := jsonPath(res, "changes.downloads").([]any)
	if len(dls) != 1 {
		t.Fatalf("%s: changes = %v, want the one download %s", what, jsonPath(res, "changes"), name)
	}
	dl := dls[0].(map[string]any)
	path := fmt.Sprint(dl["path"])
	dir := filepath.Join(env.Artifacts.Dir(), "downloads") + string(filepath.Separator)
	if dl["state"] != "completed" || dl["name"] != name || !strings.HasPrefix(path, dir) || dl["bytes"] != float64(len(content)) {
		t.Errorf("%s: download = %v, want %s completed, %d bytes, under %s", what, dl, name, len(content), dir)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != content {
		t.Errorf("%s: the file holds %q (%v), want %q", what, data, err, content)
	}
	return dl
}

// listedNames returns the names list_downloads lists.
func listedNames(t *testing.T, env *Env) []string {
	t.Helper()
	var names []string
	for _, d := range mustRun(t, env, "list_downloads", `{}`)["downloads"].([]any) {
		names = append(names, fmt.Sprint(d.(map[string]any)["name"]))
	}
	return names
}

// TestBackendsDownloads: on every backend, a click on a link with a
// download attribute, a click on a link to an attachment and a navigation
// to an attachment each report the file in changes.downloads (the
// navigation also download: true, the tab staying put), saved under the
// session's artifact dir; one over the size limit is refused and its
// file removed; and list_downloads in one session does not list another's.
func TestBackendsDownloads(t *testing.T) {
	t.Parallel()
	site := downloadSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		env := backendDownloadEnv(t, backend)
		t.Run("download attribute", func(t *testing.T) {
			s := session(t, env)
			mustRun(t, s, "navigate_page", fmt.Sprintf(`{"url":"%s/?n=attr"}`, site))
			checkDownload(t, s, "click", mustRun(t, s, "click", `{"selector":"#attr"}`), "attr-a.txt", "plain notes\n")
		})
		t.Run("link to an attachment", func(t *testing.T) {
			s := session(t, env)
			page := fmt.Sprintf("%s/?n=link", site)
			mustRun(t, s, "navigate_page", fmt.Sprintf(`{"url":%q}`, page))
			h := &harness{env: s}
			ref := backendsRef(t, h, `link "report"`)
			checkDownload(t, s, "click", mustRun(t, s, "click", `{"uid":"`+ref+`"}`), "link.csv", "id,name\n1,ada\n")
			// The page stayed: its refs and its URL too.
			mustRun(t, s, "hover", `{"uid":"`+ref+`"}`)
			if pages := fmt.Sprint(mustRun(t, s, "list_pages", `{}`)["pages"]); !strings.Contains(pages, page) || strings.Contains(pages, "link.csv") {
				t.Errorf("list_pages after the download = %s, want the tab on %s", pages, page)
			}
		})
		t.Run("navigation to an attachment", func(t *testing.T) {
			s := session(t, env)
			page := fmt.Sprintf("%s/?n=nav", site)
			mustRun(t, s, "navigate_page", fmt.Sprintf(`{"url":%q}`, page))
			res := mustRun(t, s, "navigate_page", fmt.Sprintf(`{"url":"%s/file/direct.csv"}`, site))
			checkDownload(t, s, "navigate_page", res, "direct.csv", "id,name\n1,ada\n")
			if res["download"] != true || res["url"] != page {
				t.Errorf("navigate_page to an attachment = %v, want download: true and the tab still on %s", res, page)
			}
		})
		t.Run("over the limit", func(t *testing.T) {
			s := session(t, env)
			mustRun(t, s, "navigate_page", fmt.Sprintf(`{"url":"%s/?n=big"}`, site))
			res := mustRun(t, s, "navigate_page", fmt.Sprintf(`{"url":"%s/file/big.bin"}`, site))
			dls, _ := jsonPath(res, "changes.downloads").([]any)
			if len(dls) != 1 || dls[0].(map[string]any)["state"] != "refused" || !strings.Contains(fmt.Sprint(dls[0]), "CDPKIT_DOWNLOAD_MAX") {
				t.Fatalf("the oversize download: changes %v, want it refused", jsonPath(res, "changes"))
			}
			netEventually(t, "the file removed", func() bool {
				entries, _ := os.ReadDir(filepath.Join(s.Artifacts.Dir(), "downloads"))
				return len(entries) == 0
			})
		})
		t.Run("sessions apart", func(t *testing.T) {
			a, b := session(t, env), session(t, env)
			for _, s := range []struct {
				env  *Env
				name string
			}{{a, "mine"}, {b, "theirs"}} {
				mustRun(t, s.env, "navigate_page", fmt.Sprintf(`{"url":"%s/?n=%s"}`, site, s.name))
				checkDownload(t, s.env, "click", mustRun(t, s.env, "click", `{"selector":"#get"}`), s.name+".csv", "id,name\n1,ada\n")
			}
			if got := fmt.Sprint(listedNames(t, a)); got != "[mine.csv]" {
				t.Errorf("list_downloads in session a = %s, want [mine.csv]", got)
			}
			if got := fmt.Sprint(listedNames(t, b)); got != "[theirs.csv]" {
				t.Errorf("list_downloads in session b = %s, want [theirs.csv]", got)
			}
		})
	})
}
