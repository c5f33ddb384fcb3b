package tools

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestDownloadSessionCaps checks that a session's downloads are bounded in
// number and in total bytes, not only each file: a download past either
// limit is cancelled, its file removed, and it is reported refused.
func TestDownloadSessionCaps(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		for _, f := range []string{"a-400", "b-400", "c-400", "d-10", "e-10"} {
			fmt.Fprintf(w, `<a id=%s href="/file/%s.bin">%s</a> `, f[:1], f, f)
		}
	})
	mux.HandleFunc("/file/", func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		var n int
		fmt.Sscanf(name[2:], "%d", &n)
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(make([]byte, n))
	})
	site := browsertest.ServerHandler(t, mux).URL

	env := downloadingEnv(t, browser.Options{DownloadFiles: 3, DownloadTotal: 1000})
	dir := filepath.Join(env.Artifacts.Dir(), "downloads")
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site))

	tests := []struct {
		link, state, mention string
	}{
		{"a", "completed", ""},
		{"b", "completed", ""},
		{"c", "refused", "1000 bytes"}, // 1200 bytes in all
		{"d", "completed", ""},         // 810 bytes, the third file
		{"e", "refused", "3 downloads"},
	}
	for _, tt := range tests {
		d := mustRun(t, env, "click", fmt.Sprintf(`{"selector":"#%s"}`, tt.link))
		dls, _ := jsonPath(d, "changes.downloads").([]any)
		if len(dls) != 1 {
			t.Fatalf("click #%s: changes %v, want one download", tt.link, jsonPath(d, "changes"))
		}
		dl := dls[0].(map[string]any)
		if dl["state"] != tt.state || !strings.Contains(fmt.Sprint(dl["error"]), tt.mention) {
			t.Errorf("download %s = %v, want %s mentioning %q", tt.link, dl, tt.state, tt.mention)
		}
	}
	netEventually(t, "the refused files removed", func() bool {
		entries, _ := os.ReadDir(dir)
		return len(entries) == 3
	})
}
