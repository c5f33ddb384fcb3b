package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// toolError returns a failed call's code, or "" if it succeeded.
func toolError(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		return ""
	}
	var e struct{ Code string }
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &e)
	return e.Code
}

// TestHTTPIsolatedSessionsKeepTheirFiles checks that with isolated
// sessions each session's files live apart: another session can neither
// load the storage state one saved, nor list or upload its downloads.
func TestHTTPIsolatedSessionsKeepTheirFiles(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "a-secret", Path: "/"})
		fmt.Fprint(w, `<title>in</title><input type="file" id="f">`)
	})
	mux.HandleFunc("/report.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "a,b\n1,2\n")
	})
	site := browsertest.ServerHandler(t, mux).URL
	env := ownBrowserEnv(t)
	url := serveSessions(t, env, &SessionOptions{Isolate: true})
	a, b := connect(t, url, nil), connect(t, url, nil)

	ok(t, a, "navigate_page", map[string]any{"url": site + "/login"}, nil)
	var saved struct{ Path string }
	ok(t, a, "save_storage_state", map[string]any{"path": "state.json"}, &saved)
	if filepath.Dir(saved.Path) == env.Artifacts.Dir() {
		t.Errorf("session a's state went to the shared artifact dir: %s", saved.Path)
	}
	call(t, a, "navigate_page", map[string]any{"url": site + "/report.csv"}) // a download, whatever the call says
	var dl struct {
		Downloads []struct{ Path, State string }
	}
	browsertest.Eventually(t, 30*time.Second, func() error {
		ok(t, a, "list_downloads", nil, &dl)
		if len(dl.Downloads) != 1 || dl.Downloads[0].State != "completed" {
			return fmt.Errorf("session a's downloads: %+v", dl.Downloads)
		}
		return nil
	})
	if !strings.HasPrefix(dl.Downloads[0].Path, filepath.Dir(saved.Path)+string(filepath.Separator)) {
		t.Errorf("session a's download %s is not in its own folder %s", dl.Downloads[0].Path, filepath.Dir(saved.Path))
	}

	ok(t, b, "navigate_page", map[string]any{"url": site + "/login"}, nil)
	for _, path := range []string{"state.json", saved.Path} {
		if code := toolError(t, call(t, b, "load_storage_state", map[string]any{"path": path})); code != "UNSAFE_PATH" {
			t.Errorf("session b loading a's state %s: code %q, want UNSAFE_PATH", path, code)
		}
	}
	var other struct{ Downloads []any }
	ok(t, b, "list_downloads", nil, &other)
	if len(other.Downloads) != 0 {
		t.Errorf("session b lists a's downloads: %v", other.Downloads)
	}
	if code := toolError(t, call(t, b, "upload_file", map[string]any{"selector": "#f", "filePath": dl.Downloads[0].Path})); code != "UNSAFE_PATH" {
		t.Errorf("session b uploading a's download: code %q, want UNSAFE_PATH", code)
	}
}
