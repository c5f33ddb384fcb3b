package mcpserver

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// ownBrowserEnv returns an Env with a browser of the test's own, for
// tests that need to know every tab in it.
func ownBrowserEnv(t *testing.T) *tools.Env {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	browsers := driver.NewManager(browser.NewManager(&browser.Options{ExecPath: browsertest.ExecPath(t), Logger: log,
		DownloadDir: filepath.Join(artifacts.Dir(), "downloads")}).Backend(), nil)
	t.Cleanup(func() {
		if err := browsers.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	return &tools.Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: 90 * time.Second}
}

// usersSite serves /users, whose title shows the status of its fetch of
// /api/users (a 404 unless mocked).
func usersSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/users", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>loading</title><script>fetch("/api/users").then(r => { document.title = "status " + r.status })</script>`)
	})
	return browsertest.ServerHandler(t, mux).URL
}

// title waits for the session's tab to leave "loading" and returns its
// title.
func loadedTitle(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	var got string
	browsertest.Eventually(t, 30*time.Second, func() error {
		var loc struct{ Title string }
		ok(t, cs, "get_url", nil, &loc)
		if got = loc.Title; got == "loading" || got == "" {
			return fmt.Errorf("the page's fetch is not answered yet")
		}
		return nil
	})
	return got
}

// TestHTTPSessionMocksStayInTheSession checks that one HTTP session's mock
// rules never answer another session's requests, in a browser context the
// sessions share: a context rule applies to the session's own tabs only,
// and is refused while another session has a tab in the context.
func TestHTTPSessionMocksStayInTheSession(t *testing.T) {
	site := usersSite(t)
	env := ownBrowserEnv(t)
	url := serveSessions(t, env, nil)
	a, b := connect(t, url, nil), connect(t, url, nil)

	ok(t, b, "navigate_page", map[string]any{"url": site + "/users"}, nil)
	ok(t, b, "mock_request", map[string]any{"url": "*/api/users", "json": []string{"mocked"}, "scope": "context"}, nil)
	ok(t, b, "navigate_page", map[string]any{"type": "reload"}, nil)
	if got := loadedTitle(t, b); got != "status 200" {
		t.Fatalf("session b's own tab shows %q, want its mock's status 200", got)
	}

	ok(t, a, "navigate_page", map[string]any{"url": site + "/users"}, nil)
	if got := loadedTitle(t, a); got != "status 404" {
		t.Errorf("session a's tab shows %q, want the server's 404: session b's context rule answered a's request", got)
	}
	var opened struct{ ID string }
	ok(t, a, "new_page", map[string]any{"url": site + "/users"}, &opened)
	if got := loadedTitle(t, a); got != "status 404" {
		t.Errorf("session a's new tab shows %q, want the server's 404", got)
	}

	// With a's tabs in the context, b may not ask for the context again.
	res := call(t, b, "mock_request", map[string]any{"url": "*/other", "status": 204, "scope": "context"})
	var e struct {
		Code string `json:"code"`
		Hint string `json:"hint"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &e)
	if !res.IsError || e.Code != "INVALID_ARGS" || !strings.Contains(e.Hint, "isolate-sessions") {
		t.Errorf("a context rule over another session's tabs = %s, want INVALID_ARGS with a hint naming --isolate-sessions", raw)
	}
	// Nor can a's list or clear b's rules.
	var list struct{ Rules int }
	ok(t, a, "list_mocks", nil, &list)
	if list.Rules != 0 {
		t.Errorf("session a lists %d mock rules, want none of b's", list.Rules)
	}
}
