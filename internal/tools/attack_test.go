package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// hitLog records the paths a test server was asked for.
type hitLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *hitLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.paths = append(l.paths, r.URL.Path)
	l.mu.Unlock()
	fmt.Fprint(w, "<title>internal</title><p>secret internal page")
}

func (l *hitLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.paths)
}

// attackEnv is an Env whose URL policy treats the name private.test as a
// private address (10.0.0.7) while Chromium maps it to a real server on
// 127.0.0.2: a request that slipped past the policy would show in that
// server's log. site is an allowed loopback server with attack pages.
func attackEnv(t *testing.T) (h *harness, site, private string, hits *hitLog) {
	t.Helper()
	hits = &hitLog{}
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	internal := httptest.NewUnstartedServer(hits)
	internal.Listener = ln
	internal.Start()
	t.Cleanup(internal.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	private = "http://private.test:" + port

	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>attack</title>
<a id="internal" href="%[1]s/link">internal</a>
<a id="passwd" href="file:///etc/passwd">passwd</a>
<button id="popup" onclick="window.open('%[1]s/popup')">popup</button>
<button id="frame" onclick="const f = document.createElement('iframe'); f.src = '%[1]s/iframe'; document.body.append(f)">frame</button>
<input type="file" id="file">`, private)
	})
	srv := browsertest.ServerHandler(t, mux)

	pol := &policy.Policy{Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "private.test" {
			return []netip.Addr{netip.MustParseAddr("10.0.0.7")}, nil
		}
		return nil, errors.New("no such host")
	}}
	// A browser of its own: its guard has the test's policy and resolver
	// rules, and the first case checks that no browser was started.
	h = newHarness(t, &harnessOptions{Browser: &browser.Options{URLPolicy: pol,
		Args: []string{"--host-resolver-rules=MAP private.test 127.0.0.2"}}})
	h.env.URLPolicy = pol
	return h, srv.URL, private, hits
}

// TestAttacks drives the tools as a hostile page or a misled agent would,
// and checks both the refusal and that nothing happened: no request reached
// the private server, no file was written outside the artifact dir, no
// file was read from outside the upload roots.
func TestAttacks(t *testing.T) {
	t.Parallel()
	h, site, private, hits := attackEnv(t)
	noHits := func(t *testing.T) {
		t.Helper()
		if got := hits.get(); len(got) > 0 {
			t.Fatalf("the private server was reached: %v", got)
		}
	}

	t.Run("blocked URLs fail before the browser starts", func(t *testing.T) {
		for _, u := range []string{
			"file:///etc/passwd", "javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
			"blob:http://127.0.0.1/x", "chrome://settings", "chrome-extension://abcdefghijklmnop/x.html",
			"view-source:http://127.0.0.1/", "devtools://devtools/bundled/inspector.html", "about:config",
			"http://169.254.169.254/latest/meta-data/", "http://2852039166/", "http://0xA9FEA9FE/",
			"http://0251.0376.0251.0376/", "http://10.1/", "http://[::ffff:169.254.169.254]/",
			"http://user@169.254.169.254/", "http://169.254.169.254./", "http://0.0.0.0/", "http://[fd00::1]/",
			"http:\\\\169.254.169.254\\", private + "/direct",
		} {
			for _, tool := range []string{"navigate_page", "new_page"} {
				_, err := h.call(t, tool, fmt.Sprintf(`{"url":%q}`, u))
				wantCode(t, err, URLBlocked, "")
			}
		}
		if b := browser.ManagerOf(h.env.Browsers.Backend()).Current(); b != nil {
			t.Errorf("a browser was started for blocked URLs (pid %d)", b.PID())
		}
		noHits(t)
	})

	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/"))
	t.Run("redirect to cloud metadata", func(t *testing.T) {
		_, err := h.call(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/redirect?to=http://169.254.169.254/latest/meta-data/"))
		wantCode(t, err, URLBlocked, "169.254.169.254")
	})
	t.Run("redirect to a private name", func(t *testing.T) {
		_, err := h.call(t, "new_page", fmt.Sprintf(`{"url":%q}`, site+"/redirect?to="+private+"/redirected"))
		wantCode(t, err, URLBlocked, "private.test")
		noHits(t)
	})
	t.Run("redirect to file:", func(t *testing.T) {
		_, err := h.call(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/redirect?to=file:///etc/passwd"))
		if err == nil {
			t.Fatal("the redirect to file:///etc/passwd loaded")
		}
		noPasswd(t, h)
	})

	t.Run("files outside the artifact dir", func(t *testing.T) {
		h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/"))
		outside := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(h.env.Artifacts.Dir(), "escape")); err != nil {
			t.Fatal(err)
		}
		paths := []string{
			"../evil.png", "a/../../evil.png", filepath.Join(outside, "evil.png"), "/etc/cdpkit-evil.png",
			"escape/evil.png", "evil\x00.png", strings.Repeat("a", 600) + ".png",
		}
		for _, p := range paths {
			for _, call := range []struct{ tool, args string }{
				{"take_screenshot", `{"filePath":` + jsonString(p) + `}`},
				{"take_snapshot", `{"filePath":` + jsonString(p) + `}`},
				{"evaluate_script", `{"function":"() => 1","savePath":` + jsonString(p) + `}`},
			} {
				_, err := h.call(t, call.tool, call.args)
				wantCode(t, err, UnsafePath, "")
			}
		}
		if entries, _ := os.ReadDir(outside); len(entries) > 0 {
			t.Errorf("files written outside the artifact dir: %v", entries)
		}
		for _, p := range []string{filepath.Join(filepath.Dir(h.env.Artifacts.Dir()), "evil.png"), "/etc/cdpkit-evil.png"} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s was written", p)
			}
		}
	})

	t.Run("upload of files outside the roots", func(t *testing.T) {
		h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/"))
		home, _ := os.UserHomeDir()
		for _, p := range []string{"/etc/passwd", filepath.Join(home, ".ssh", "id_rsa"), "../../../../etc/passwd", "/proc/self/environ"} {
			_, err := h.call(t, "upload_file", fmt.Sprintf(`{"selector":"#file","filePath":%q}`, p))
			wantCode(t, err, UnsafePath, "")
		}
		data := h.mustCall(t, "evaluate_script", `{"function":"() => document.querySelector('#file').files.length"}`)
		if n, _ := data["value"].(float64); n != 0 {
			t.Errorf("the file input holds %v files", data["value"])
		}
	})

	// Page-initiated navigations: the guard refuses them in the browser.
	for _, tt := range []struct{ name, selector string }{
		{"link click to a private name", "#internal"},
		{"iframe to a private name", "#frame"},
		{"link click to file:", "#passwd"},
		{"window.open to a private name", "#popup"}, // last: the popup comes to the front
	} {
		t.Run(tt.name, func(t *testing.T) {
			h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/"))
			h.mustCall(t, "click", fmt.Sprintf(`{"selector":%q}`, tt.selector))
			// The behaviour under test is that nothing happens, which no
			// event can signal: give a request that slipped through time to
			// arrive.
			time.Sleep(500 * time.Millisecond)
			noHits(t)
			noPasswd(t, h)
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// noPasswd fails if the active tab is at a file: URL or shows /etc/passwd.
func noPasswd(t *testing.T, h *harness) {
	t.Helper()
	data := h.mustCall(t, "get_url", `{}`)
	if u, _ := data["url"].(string); strings.HasPrefix(u, "file:") {
		t.Fatalf("the tab is at %s", u)
	}
	text, err := h.call(t, "get_text", `{}`)
	if err == nil && strings.Contains(fmt.Sprint(text), "root:x:0:0") {
		t.Fatal("the tab shows /etc/passwd")
	}
}
