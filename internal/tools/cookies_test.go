package tools

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// loginSite is a fixture app: /login sets an httpOnly session cookie and
// goes to /app, which greets a logged-in user and shows its form to others,
// and keeps a preference in localStorage.
func loginSite(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cret-session-value", Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/app", http.StatusFound)
	})
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err == nil && c.Value == "s3cret-session-value" {
			fmt.Fprint(w, `<title>app</title><h1>Welcome ada</h1><p id=theme></p>
<script>localStorage.setItem("theme", localStorage.getItem("theme") || "dark"); theme.textContent = "theme " + localStorage.getItem("theme");</script>`)
			return
		}
		fmt.Fprint(w, `<title>login</title><form action=/login><input name=user><button>Log in</button></form>`)
	})
	return browsertest.ServerHandler(t, mux).URL
}

func TestCookiesAndStorageState(t *testing.T) {
	t.Parallel()
	site := loginSite(t)
	env := browserEnv(t)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/login"))
	if text := mustCall(t, env, "get_text", `{}`).Text; !strings.Contains(text, "Welcome ada") {
		t.Fatalf("not logged in: %q", text)
	}
	d := mustRun(t, env, "list_cookies", `{}`)
	raw, _ := json.Marshal(d)
	if !strings.Contains(string(raw), `"name":"session"`) || !strings.Contains(string(raw), `"httpOnly":true`) || !strings.Contains(string(raw), "s3cret-session-value") {
		t.Fatalf("list_cookies does not list the httpOnly session cookie: %s", raw)
	}
	d = mustRun(t, env, "list_cookies", fmt.Sprintf(`{"urls":[%q],"savePath":"cookies.json"}`, site+"/app"))
	raw, _ = json.Marshal(d)
	if strings.Contains(string(raw), "s3cret-session-value") || !strings.Contains(string(raw), `"name":"session"`) {
		t.Errorf("list_cookies with savePath: %s, want names without values", raw)
	}
	if data, err := os.ReadFile(fmt.Sprint(d["path"])); err != nil || !strings.Contains(string(data), "s3cret-session-value") {
		t.Errorf("savePath file: %q, %v; want the value", data, err)
	}

	d = mustRun(t, env, "save_storage_state", `{"path":"state/ada.json"}`)
	raw, _ = json.Marshal(d)
	if strings.Contains(string(raw), "s3cret") || !strings.Contains(string(raw), "1 keys") {
		t.Errorf("save_storage_state result: %s, want counts without values", raw)
	}

	// Deleted, the cookie is gone and the app asks to log in again.
	d = mustRun(t, env, "delete_cookies", fmt.Sprintf(`{"name":"session","url":%q}`, site+"/"))
	if d["deleted"] != float64(1) {
		t.Errorf("delete_cookies deleted %v, want 1", d["deleted"])
	}
	if raw, _ := json.Marshal(mustRun(t, env, "list_cookies", `{}`)); strings.Contains(string(raw), "session") {
		t.Errorf("the session cookie is still listed: %s", raw)
	}
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/app"))
	if text := mustCall(t, env, "get_text", `{}`).Text; !strings.Contains(text, "Log in") {
		t.Errorf("still logged in after delete_cookies: %q", text)
	}

	// A fresh browser context, loaded with the state, is logged in at once.
	fresh := *env
	fresh.Scope = driver.NewScope(&driver.ScopeOptions{Isolate: true})
	mustRun(t, &fresh, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/app"))
	if text := mustCall(t, &fresh, "get_text", `{}`).Text; !strings.Contains(text, "Log in") {
		t.Fatalf("the fresh context is logged in before loading the state: %q", text)
	}
	mustRun(t, env, "set_cookie", fmt.Sprintf(`{"name":"theme-check","value":"1","url":%q}`, site))
	mustRun(t, &fresh, "load_storage_state", `{"path":"state/ada.json"}`)
	mustRun(t, &fresh, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/app"))
	if text := mustCall(t, &fresh, "get_text", `{}`).Text; !strings.Contains(text, "Welcome ada") || strings.Contains(text, "Log in") {
		t.Errorf("the loaded state does not log the app in: %q", text)
	}
	// --storage-state: a browser started with the file is logged in too.
	data, err := os.ReadFile(filepath.Join(env.Artifacts.Dir(), "state", "ada.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := driver.ParseStorageState(data)
	if err != nil {
		t.Fatalf("the saved state does not parse: %v\n%s", err, data)
	}
	seeded := driver.NewManager(browser.NewManager(&browser.Options{ExecPath: browsertest.ExecPath(t), Logger: env.Log, StorageState: st}).Backend(), nil)
	t.Cleanup(func() { seeded.Close() })
	other := &Env{Browsers: seeded, Artifacts: env.Artifacts, Log: env.Log, Timeout: env.Timeout}
	mustRun(t, other, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/app"))
	if text := mustCall(t, other, "get_text", `{}`).Text; !strings.Contains(text, "Welcome ada") {
		t.Errorf("a browser started with the storage state is not logged in: %q", text)
	}

	mustRun(t, &fresh, "delete_cookies", `{"all":true}`)
	if raw, _ := json.Marshal(mustRun(t, env, "list_cookies", `{}`)); !strings.Contains(string(raw), "theme-check") {
		t.Errorf("delete_cookies all in one context deleted another's cookies: %s", raw)
	}
}

func TestCookieToolsRejectArgs(t *testing.T) {
	t.Parallel()
	site := loginSite(t)
	env := browserEnv(t)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/app"))
	os.WriteFile(env.Artifacts.Dir()+"/bad-state.json", []byte(`{"cookies":[{"name":"","value":"x","domain":"a","path":"/"}],"origins":[]}`), 0o600)
	tests := []struct {
		tool, args string
		code       Code
		mention    string
	}{
		{"set_cookie", `{"name":"a","value":"b"}`, InvalidArgs, "url, or domain"},
		{"set_cookie", `{"name":"a","value":"b","url":"http://127.0.0.1/","domain":"x"}`, InvalidArgs, "url, or domain"},
		{"set_cookie", `{"name":"a b","value":"b","url":"http://127.0.0.1/"}`, InvalidArgs, "name"},
		{"set_cookie", `{"name":"a","value":"b","url":"ftp://127.0.0.1/"}`, InvalidArgs, "url"},
		{"set_cookie", `{"name":"a","value":"b","url":"http://example.com/","secure":true}`, InvalidArgs, "https"},
		{"set_cookie", `{"name":"a","value":"b","url":"http://127.0.0.1/","sameSite":"Sometimes"}`, InvalidArgs, "sameSite"},
		{"set_cookie", `{"name":"a","value":"b","url":"http://127.0.0.1/","sameSite":"None"}`, InvalidArgs, "secure"},
		{"set_cookie", `{"name":"a","value":"b","domain":"x.test","path":"nope"}`, InvalidArgs, "path"},
		{"set_cookie", `{"name":"a","value":"b","domain":"x.test","partitionKey":"x"}`, InvalidArgs, "partitionKey"},
		{"delete_cookies", `{}`, InvalidArgs, "name"},
		{"delete_cookies", `{"name":"a"}`, InvalidArgs, "url or domain"},
		{"delete_cookies", `{"all":true,"name":"a"}`, InvalidArgs, "all"},
		{"list_cookies", `{"urls":["file:///etc"]}`, InvalidArgs, "file"},
		{"list_cookies", `{"savePath":"../out.json"}`, UnsafePath, ""},
		{"save_storage_state", `{"path":"/etc/state.json"}`, UnsafePath, ""},
		{"load_storage_state", `{"path":"../../etc/passwd"}`, UnsafePath, ""},
		{"load_storage_state", `{"path":"missing.json"}`, UnsafePath, "no such file"},
		{"load_storage_state", `{"path":"bad-state.json"}`, InvalidArgs, "cookie 0"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			_, err := runTool(t, env, tt.tool, tt.args)
			wantCode(t, err, tt.code, tt.mention)
		})
	}
	if raw, _ := json.Marshal(mustRun(t, env, "list_cookies", `{}`)); strings.Contains(string(raw), `"name":"a"`) {
		t.Errorf("a refused cookie was set: %s", raw)
	}
}
