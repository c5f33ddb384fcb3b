package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The console, the request log, mocks, cookies, storage state and
// uploads, on every backend: the same calls and expectations on Chromium
// and on Firefox.

// networkSite serves the pages of these tests on loopback.
func networkSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><html><head><title>net</title></head><body>"+body+"</body></html>")
		}
	}
	mux.HandleFunc("/console.html", page(`<script>console.error('boom ' + (40 + 2)); console.log('plain');</script>`))
	mux.HandleFunc("/fetch.html", page(`<p id="out">waiting</p><script>
		fetch('/api/created').then(r => r.text()).then(t => document.getElementById('out').textContent = t);
	</script>`))
	mux.HandleFunc("/api/created", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"made":true}`)
	})
	mux.HandleFunc("/api/real", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "from the network")
	})
	mux.HandleFunc("/blank.html", page(`<p>blank</p>`))
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cret", Path: "/", HttpOnly: true})
		page(`<p>logged in</p><script>localStorage.setItem('theme', 'dark')</script>`)(w, r)
	})
	mux.HandleFunc("/upload.html", page(`<input type="file" id="avatar" aria-label="Avatar">`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBackendsConsoleError: a console error the page logs appears in
// list_console_messages with its level, and in get_console_message; a new
// document clears the log unless preserve is on.
func TestBackendsConsoleError(t *testing.T) {
	t.Parallel()
	site := networkSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/console.html"}`)
		res, err := h.result(t, "list_console_messages", `{"types":["error"]}`)
		if err != nil {
			t.Fatalf("list_console_messages: %v", err)
		}
		m := regexp.MustCompile(`#(\d+) error.*boom 42`).FindStringSubmatch(res.Text)
		if m == nil || strings.Contains(res.Text, "plain") {
			t.Fatalf("list_console_messages types error:\n%s\nwant the error boom 42 alone", res.Text)
		}
		got, err := h.result(t, "get_console_message", `{"msgid":`+m[1]+`}`)
		if err != nil || !strings.Contains(got.Text, "boom 42") || !strings.Contains(mustJSON(t, got.Data), `"level":"error"`) {
			t.Errorf("get_console_message %s = %v, %v; want the error boom 42", m[1], got, err)
		}
		// A new document clears the log, unless preserve is on.
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/blank.html"}`)
		if res, err := h.result(t, "list_console_messages", `{"preserve":true}`); err != nil || strings.Contains(res.Text, "boom") {
			t.Errorf("after navigating away the log holds %v, %v; want it cleared", res, err)
		}
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/console.html"}`)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/blank.html"}`)
		if res, err := h.result(t, "list_console_messages", `{}`); err != nil || !strings.Contains(res.Text, "boom 42") {
			t.Errorf("with preserve on, after navigating away the log holds %v, %v; want the error kept", res, err)
		}
	})
}

// TestBackendsNetworkLog: a page's fetch appears in
// list_network_requests with its status and type, and
// get_network_request gives its headers and body.
func TestBackendsNetworkLog(t *testing.T) {
	t.Parallel()
	site := networkSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/fetch.html"}`)
		h.mustCall(t, "wait_for", `{"text":["made"]}`)
		res, err := h.result(t, "list_network_requests", `{"url":"/api/created"}`)
		if err != nil {
			t.Fatalf("list_network_requests: %v", err)
		}
		m := regexp.MustCompile(`(?m)^#(\d+) GET 201 fetch .*/api/created`).FindStringSubmatch(res.Text)
		if m == nil {
			t.Fatalf("list_network_requests:\n%s\nwant the fetch of /api/created with status 201", res.Text)
		}
		d := h.mustCall(t, "get_network_request", `{"reqid":`+m[1]+`}`)
		body, _ := d["responseBody"].(map[string]any)
		if d["status"] != float64(201) || !strings.Contains(fmt.Sprint(body), `{"made":true}`) ||
			!strings.Contains(strings.ToLower(fmt.Sprint(d["responseHeaders"])), "application/json") {
			t.Errorf("get_network_request %s = %v, want status 201, its JSON content type and body", m[1], d)
		}
	})
}

// TestBackendsMockFetch: a page's fetch of a mocked URL gets the mock,
// and another session's does not; list_mocks counts the hit; after
// clear_mocks the network answers.
func TestBackendsMockFetch(t *testing.T) {
	t.Parallel()
	site := networkSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/blank.html"}`)
		h.mustCall(t, "mock_request", `{"url":"*/api/real*","status":202,"json":{"mocked":true},"headers":{"X-Mock":"yes"}}`)
		fetch := `{"function":"async () => { const r = await fetch('/api/real'); return r.status + ' ' + r.headers.get('x-mock') + ' ' + await r.text(); }"}`
		if got := h.mustCall(t, "evaluate_script", fetch)["value"]; got != `202 yes {"mocked":true}` {
			t.Errorf("the page's fetch got %q, want the mock", got)
		}
		// Another session's tab is not answered by this session's rule.
		other := backendHarness(t, backend)
		other.mustCall(t, "navigate_page", `{"url":"`+site+`/blank.html"}`)
		if got := other.mustCall(t, "evaluate_script", fetch)["value"]; got != "200 null from the network" {
			t.Errorf("another session's fetch got %q, want the network's answer", got)
		}
		res, err := h.result(t, "list_mocks", `{}`)
		if err != nil || !strings.Contains(res.Text, "hits 1") {
			t.Errorf("list_mocks = %v, %v; want the rule with 1 hit", res, err)
		}
		h.mustCall(t, "clear_mocks", `{}`)
		if got := h.mustCall(t, "evaluate_script", fetch)["value"]; got != "200 null from the network" {
			t.Errorf("after clear_mocks the page's fetch got %q, want the network's answer", got)
		}
		// A failing rule fails the fetch.
		h.mustCall(t, "mock_request", `{"url":"*/api/real*","action":"fail"}`)
		failed := `{"function":"() => fetch('/api/real').then(() => 'answered', () => 'failed')"}`
		if got := h.mustCall(t, "evaluate_script", failed)["value"]; got != "failed" {
			t.Errorf("a fail rule: the page's fetch was %q", got)
		}
	})
}

// TestBackendsHTTPOnlyCookie: an httpOnly cookie a response set appears
// in list_cookies; save_storage_state writes it with the origin's
// localStorage, and load_storage_state brings both back after
// delete_cookies.
func TestBackendsHTTPOnlyCookie(t *testing.T) {
	t.Parallel()
	site := networkSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/login"}`)
		d := h.mustCall(t, "list_cookies", `{}`)
		if c := cookieNamed(d, "session"); c == nil || c["httpOnly"] != true {
			t.Fatalf("list_cookies = %s, want the httpOnly session cookie", jsonOf(t, d))
		}
		h.mustCall(t, "set_cookie", `{"name":"pref","value":"1","url":"`+site+`/"}`)
		if s := jsonOf(t, h.mustCall(t, "list_cookies", `{"urls":["`+site+`/"]}`)); !strings.Contains(s, `"pref"`) {
			t.Errorf("list_cookies after set_cookie = %s, want pref", s)
		}
		h.mustCall(t, "save_storage_state", `{"path":"state.json"}`)
		data, err := os.ReadFile(filepath.Join(h.env.Artifacts.Dir(), "state.json"))
		if err != nil || !strings.Contains(string(data), `"s3cret"`) || !strings.Contains(string(data), `"theme"`) {
			t.Fatalf("state.json = %s, %v; want the session cookie and the theme", data, err)
		}
		if d := h.mustCall(t, "delete_cookies", `{"all":true}`); jsonOf(t, d) == "" {
			t.Fatal("delete_cookies")
		}
		if s := jsonOf(t, h.mustCall(t, "list_cookies", `{}`)); strings.Contains(s, "session") {
			t.Fatalf("list_cookies after delete_cookies all = %s", s)
		}
		h.mustCall(t, "evaluate_script", `{"function":"() => localStorage.clear()"}`)
		h.mustCall(t, "load_storage_state", `{"path":"state.json"}`)
		if s := jsonOf(t, h.mustCall(t, "list_cookies", `{}`)); !strings.Contains(s, `"session"`) {
			t.Errorf("list_cookies after load_storage_state = %s, want the session cookie back", s)
		}
		if got := h.mustCall(t, "evaluate_script", `{"function":"() => localStorage.getItem('theme')"}`)["value"]; got != "dark" {
			t.Errorf("localStorage theme after load_storage_state = %v, want dark", got)
		}
	})
}

// TestBackendsUploadFile: upload_file gives a file of the artifact dir
// to a file input; a path outside the upload roots is refused.
func TestBackendsUploadFile(t *testing.T) {
	t.Parallel()
	site := networkSite(t)
	eachBackend(t, func(t *testing.T, backend string) {
		h := backendHarness(t, backend)
		file := filepath.Join(h.env.Artifacts.Dir(), "cv.txt")
		if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
			t.Fatal(err)
		}
		h.mustCall(t, "navigate_page", `{"url":"`+site+`/upload.html"}`)
		h.mustCall(t, "upload_file", `{"selector":"#avatar","paths":["`+file+`"]}`)
		got := h.mustCall(t, "evaluate_script", `{"function":"() => { const f = document.getElementById('avatar').files[0]; return f.name + ' ' + f.size; }"}`)["value"]
		if got != "cv.txt 5" {
			t.Errorf("the page's file input holds %q, want cv.txt of 5 bytes", got)
		}
		_, err := h.call(t, "upload_file", `{"selector":"#avatar","paths":["/etc/passwd"]}`)
		wantCode(t, err, UnsafePath, "/etc/passwd")
	})
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	return mustJSON(t, v)
}

// cookieNamed returns the cookie called name of a list_cookies result.
func cookieNamed(d map[string]any, name string) map[string]any {
	list, _ := d["cookies"].([]any)
	for _, c := range list {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}
