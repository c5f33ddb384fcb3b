package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// netEventually waits until cond holds. Network events arrive after the
// page's load, so a reader waits for the log to catch up.
func netEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	browsertest.Eventually(t, 30*time.Second, func() error {
		if cond() {
			return nil
		}
		return fmt.Errorf("no %s yet", what)
	})
}

// netSite serves the request-log and mocking fixtures.
func netSite(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/fifty", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<title>fifty</title>")
		for i := range 50 {
			fmt.Fprintf(&b, `<img src="/img/%d.svg">`, i)
		}
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/img/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "0.svg") { // every tenth is missing
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`)
	})
	mux.HandleFunc("/many", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<title>many</title>")
		for i := range 298 { // with the page and its favicon, 300 requests
			fmt.Fprintf(&b, `<img src="/img/%d-a-reasonably-long-asset-name-like-real-sites-use.svg?v=%d">`, i, i)
		}
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>post</title><script>
fetch("/api/echo", {method: "POST", headers: {"Content-Type": "application/json", "Authorization": "Bearer s3cr3t-token"},
  body: JSON.stringify({name: "ada", id: 7})}).then(r => r.json()).then(j => { document.title = "done " + j.got; return fetch("/big"); })
  .then(r => r.text());
</script>`)
	})
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/fifty", http.StatusFound)
	})
	mux.HandleFunc("/api/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "sid=server-secret; Path=/")
		fmt.Fprint(w, `{"got":"ada","ok":true}`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("0123456789abcdef", 2<<20/16)))
	})
	mux.HandleFunc("/users", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>users</title><ul id=list></ul><p id=err></p><script>
fetch("/api/users").then(r => { document.title = "status " + r.status; return r.json(); })
  .then(us => { for (const u of us) { const li = document.createElement("li"); li.textContent = u.name; list.append(li); } })
  .catch(e => { err.textContent = "failed: " + e; });
</script>`)
	})
	mux.HandleFunc("/kids", func(w http.ResponseWriter, r *http.Request) {
		other := "http://other.test:" + r.URL.Query().Get("port")
		fmt.Fprintf(w, `<title>kids</title><iframe src="%s/kid"></iframe><script>new Worker("/worker.js")</script>`, other)
	})
	mux.HandleFunc("/kid", func(w http.ResponseWriter, r *http.Request) {
		// Loads its image late, past the iframe's attachment.
		fmt.Fprint(w, `<title>kid</title><script>let n = 0; const t = setInterval(() => { const i = new Image(); i.src = "/img/kid-" + n + ".svg"; if (++n > 50) clearInterval(t); }, 100);</script>`)
	})
	mux.HandleFunc("/worker.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `let n = 0; const t = setInterval(() => { fetch("/from-worker?n=" + n); if (++n > 50) clearInterval(t); }, 100);`)
	})
	srv := browsertest.ServerHandler(t, mux)
	return srv.URL
}

// TestNetworkLog checks the request log: every subresource with its
// status, filters and paging, a POST's body and a JSON response body,
// redacted credentials, and a 2 MiB body written whole to savePath.
func TestNetworkLog(t *testing.T) {
	t.Parallel()
	site := netSite(t)
	env := browserEnv(t)
	env.AllowEval = true

	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/fifty"))
	var text string
	netEventually(t, "50 images done", func() bool {
		res := mustCall(t, env, "list_network_requests", `{"resourceTypes":["image"],"pageSize":200}`)
		text = res.Text
		return res.Data.(networkHeader).Total == 50 && !strings.Contains(text, " … ")
	})
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 50 {
		t.Fatalf("listed %d images, want 50:\n%s", len(lines), text)
	}
	for _, l := range lines {
		if !regexp.MustCompile(`^#\d+ GET (200|404) image `).MatchString(l) {
			t.Errorf("line %q has no status", l)
		}
	}
	res := mustCall(t, env, "list_network_requests", `{"status":["4xx"],"resourceTypes":["image"]}`)
	if h := res.Data.(networkHeader); h.Total != 5 {
		t.Errorf("4xx filter: total %d, want 5:\n%s", h.Total, res.Text)
	}
	res = mustCall(t, env, "list_network_requests", `{"url":"/img/1","pageSize":4,"pageIdx":1}`)
	// /img/1.svg and /img/10.svg … /img/19.svg: 11 matches, page 1 of 4 per page.
	if h := res.Data.(networkHeader); h.Total != 11 || h.Returned != 4 || h.Pages != 3 || !h.Truncated {
		t.Errorf("paging: %+v, want total 11, returned 4, pages 3, truncated\n%s", h, res.Text)
	}
	res = mustCall(t, env, "list_network_requests", `{"resourceTypes":["document"]}`)
	if !strings.Contains(res.Text, "GET 200 document") {
		t.Errorf("document request missing: %s", res.Text)
	}

	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/post"))
	var postID, bigID int
	netEventually(t, "the POST and /big finished", func() bool {
		res := mustCall(t, env, "list_network_requests", `{"resourceTypes":["fetch"]}`)
		postID, bigID = idOf(res.Text, "POST 200"), idOf(res.Text, "/big")
		return postID > 0 && bigID > 0 && !strings.Contains(res.Text, " … ")
	})
	netEventually(t, "/big loaded whole", func() bool {
		return mustRun(t, env, "get_network_request", fmt.Sprintf(`{"reqid":%d,"maxBodyChars":1}`, bigID))["done"] == true
	})
	res = mustCall(t, env, "list_network_requests", `{"includePreserved":true,"resourceTypes":["document"]}`)
	if !strings.Contains(res.Text, "/fifty") || !strings.Contains(res.Text, "-- navigation") {
		t.Errorf("includePreserved does not show the earlier navigation:\n%s", res.Text)
	}
	d := mustRun(t, env, "get_network_request", fmt.Sprintf(`{"reqid":%d}`, postID))
	raw, _ := json.Marshal(d)
	for _, want := range []string{`"text":"{\"name\":\"ada\",\"id\":7}"`, `"text":"{\"got\":\"ada\",\"ok\":true}"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("get_network_request lacks %s: %s", want, raw)
		}
	}
	for _, secret := range []string{"s3cr3t-token", "server-secret"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("get_network_request shows the secret %q: %s", secret, raw)
		}
	}
	if v := jsonPath(d, "requestHeaders.Authorization"); v != policy.Redacted {
		t.Errorf("Authorization = %v, want it redacted", v)
	}
	if v := jsonPath(d, "responseHeaders.Set-Cookie"); v != policy.Redacted {
		t.Errorf("Set-Cookie = %v, want it redacted", v)
	}

	d = mustRun(t, env, "get_network_request", fmt.Sprintf(`{"reqid":%d,"savePath":"bodies/big.txt"}`, bigID))
	if inl := jsonPath(d, "responseBody.inline"); inl != false {
		t.Errorf("the 2 MiB body was inlined: %v", d)
	}
	path, _ := jsonPath(d, "responseBody.path").(string)
	data, err := os.ReadFile(path)
	if err != nil || len(data) != 2<<20 {
		t.Fatalf("savePath %q: %d bytes, %v; want %d", path, len(data), err, 2<<20)
	}
	if v := jsonPath(d, "requestHeaders.Cookie"); v != policy.Redacted {
		t.Errorf("Cookie = %v, want it redacted", v)
	}
	if strings.Contains(fmt.Sprint(d), "server-secret") {
		t.Errorf("get_network_request shows the cookie's value: %v", d)
	}
	d = mustRun(t, env, "get_network_request", fmt.Sprintf(`{"reqid":%d,"maxBodyChars":100}`, bigID))
	if tr := jsonPath(d, "responseBody.truncated"); tr != true || len(jsonPath(d, "responseBody.text").(string)) != 100 {
		t.Errorf("the 2 MiB body inline: truncated %v", tr)
	}

	// A redirect hop is a request of its own, whose body is not kept.
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/go"))
	res = mustCall(t, env, "list_network_requests", `{"resourceTypes":["document"]}`)
	hop := idOf(res.Text, "GET 302 document")
	if hop == 0 || !strings.Contains(res.Text, "GET 200 document") {
		t.Fatalf("the redirect and its target are not both listed:\n%s", res.Text)
	}
	d = mustRun(t, env, "get_network_request", fmt.Sprintf(`{"reqid":%d}`, hop))
	if note := fmt.Sprint(jsonPath(d, "responseBody.note")); !strings.Contains(note, "no longer has") {
		t.Errorf("the redirect's body: %v, want a note that the browser has none", jsonPath(d, "responseBody"))
	}

	_, err = runTool(t, env, "get_network_request", `{"reqid":99999}`)
	wantCode(t, err, InvalidArgs, "99999")
	_, err = runTool(t, env, "get_network_request", fmt.Sprintf(`{"reqid":%d,"savePath":"../x"}`, bigID))
	wantCode(t, err, UnsafePath, "")
}

// idOf returns the id of the first line of a list containing s, or 0.
func idOf(list, s string) int {
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, s) {
			var id int
			fmt.Sscanf(l, "#%d", &id)
			return id
		}
	}
	return 0
}

// mustCall runs a tool and returns its Result, failing the test on an
// error.
func mustCall(t *testing.T, env *Env, name, args string) *Result {
	t.Helper()
	for _, tl := range All() {
		if tl.Name == name {
			res, err := tl.Call(t.Context(), env, json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s %s: %v", name, args, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestNetworkLogSize measures list_network_requests on a page with 300
// requests (the page and 299 images), and checks it stays small.
func TestNetworkLogSize(t *testing.T) {
	t.Parallel()
	site := netSite(t)
	env := browserEnv(t)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/many"))
	var res *Result
	var last string
	defer func() {
		if t.Failed() {
			t.Log(last)
		}
	}()
	netEventually(t, "300 requests done", func() bool {
		res = mustCall(t, env, "list_network_requests", `{}`)
		all := mustCall(t, env, "list_network_requests", `{"pageSize":200,"pageIdx":1}`)
		last = fmt.Sprintf("%+v\n%s", res.Data, all.Text)
		return res.Data.(networkHeader).Total >= 299 && !strings.Contains(all.Text, " … ")
	})
	head, _ := json.Marshal(res.Data)
	chars := len(head) + 1 + len(res.Text)
	whole := 0
	for i := 0; i < 2; i++ {
		r := mustCall(t, env, "list_network_requests", fmt.Sprintf(`{"pageSize":200,"pageIdx":%d}`, i))
		h, _ := json.Marshal(r.Data)
		whole += len(h) + 1 + len(r.Text)
	}
	t.Logf("list_network_requests, %d requests, default page (50): %d chars; all on pages of 200: %d chars", res.Data.(networkHeader).Total, chars, whole)
	if chars > 6000 {
		t.Errorf("list_network_requests is %d chars for its default page, want at most 6000", chars)
	}
}

func TestNetworkToolsRejectArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, args, mention string
	}{
		{"list_network_requests", `{"pageSize":201}`, "pageSize"},
		{"list_network_requests", `{"resourceTypes":["pictures"]}`, "pictures"},
		{"list_network_requests", `{"status":["6xx"]}`, "6xx"},
		{"get_network_request", `{}`, "reqid"},
		{"get_network_request", `{"reqid":1,"maxBodyChars":100001}`, "maxBodyChars"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			_, err := runTool(t, testEnv(), tt.tool, tt.args)
			if te := wantCode(t, err, InvalidArgs, tt.mention); te != nil && te.Hint == "" {
				t.Errorf("error %v has no hint", te)
			}
		})
	}
}

// mockEnv is browserEnv whose URL policy refuses blocked.test, which the
// browser resolves to the loopback site, so that only the guard stands
// between a page and it.
func mockEnv(t *testing.T) *Env {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	// The test hosts all live on loopback, as the browser is told too.
	pol := &policy.Policy{BlockedOrigins: []string{"blocked.test"}, Resolve: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}}
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	browsers := driver.NewManager(browser.NewManager(&browser.Options{ExecPath: browsertest.ExecPath(t), Logger: log, URLPolicy: pol,
		Args: []string{"--host-resolver-rules=MAP blocked.test 127.0.0.1, MAP other.test 127.0.0.1"}}).Backend(), nil)
	t.Cleanup(func() {
		if err := browsers.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	return &Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: 30 * time.Second, URLPolicy: pol, AllowEval: true}
}

// TestMockRequest checks the fake backend on a page that fetches
// /api/users, which the server does not have.
func TestMockRequest(t *testing.T) {
	t.Parallel()
	site := netSite(t)
	env := mockEnv(t)
	title := func() string {
		d := mustRun(t, env, "get_url", `{}`)
		return fmt.Sprint(d["title"])
	}
	load := func(want string) {
		t.Helper()
		mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/users"))
		netEventually(t, "title "+want, func() bool { return title() == want })
	}
	lastUsers := func() map[string]any {
		t.Helper()
		// The page's title shows the status as the headers arrive; the
		// request is done (its timing whole) only at its last byte.
		var d map[string]any
		netEventually(t, "the /api/users request done", func() bool {
			res := mustCall(t, env, "list_network_requests", `{"url":"/api/users"}`)
			id := idOf(res.Text, "/api/users")
			if id == 0 {
				return false
			}
			d = mustRun(t, env, "get_network_request", fmt.Sprintf(`{"reqid":%d}`, id))
			return d["done"] == true
		})
		return d
	}

	load("status 404")
	m := mustRun(t, env, "mock_request", `{"url":"*/api/users","json":[{"name":"Ada"},{"name":"Grace"}]}`)
	id := jsonPath(m, "mock.id")
	load("status 200")
	if text := mustCall(t, env, "get_text", `{}`).Text; !strings.Contains(text, "Ada") || !strings.Contains(text, "Grace") {
		t.Errorf("the page does not show the mocked users: %q", text)
	}
	mustRun(t, env, "navigate_page", `{"type":"reload"}`)
	netEventually(t, "mocked after a reload", func() bool { return title() == "status 200" })
	lines := mustCall(t, env, "list_mocks", `{}`).Text
	if !strings.Contains(lines, "hits 2") {
		t.Errorf("list_mocks does not count 2 hits: %s", lines)
	}
	mustRun(t, env, "clear_mocks", `{}`)
	load("status 404")

	// failRate 1: every request fails with the reason given.
	mustRun(t, env, "mock_request", `{"url":"re:/api/users$","action":"continue","failRate":1,"reason":"ConnectionRefused","seed":7}`)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/users"))
	netEventually(t, "the fetch to fail", func() bool {
		return strings.Contains(mustCall(t, env, "get_text", `{}`).Text, "failed: TypeError")
	})
	if f := lastUsers()["failure"]; !strings.Contains(fmt.Sprint(f), "ERR_CONNECTION_REFUSED") {
		t.Errorf("failure = %v, want ERR_CONNECTION_REFUSED", f)
	}
	mustRun(t, env, "clear_mocks", `{"all":true}`)

	// delayMs: the latency shows in the request's timing.
	mustRun(t, env, "mock_request", `{"url":"*/api/users","action":"continue","delayMs":400}`)
	load("status 404")
	if total, _ := jsonPath(lastUsers(), "timing.total").(float64); total < 400 {
		t.Errorf("timing.total = %v ms, want at least the 400 ms delay", total)
	}
	mustRun(t, env, "clear_mocks", `{}`)

	// times 2: the third request reaches the server.
	mustRun(t, env, "mock_request", `{"url":"*/api/users","status":201,"body":"[]","times":2}`)
	load("status 201")
	load("status 201")
	load("status 404")
	if lines := mustCall(t, env, "list_mocks", `{}`).Text; !strings.Contains(lines, "hits 2/2 expired") {
		t.Errorf("list_mocks: %s, want the rule expired after 2 hits", lines)
	}
	mustRun(t, env, "clear_mocks", `{"all":true}`)
	if lines := mustCall(t, env, "list_mocks", `{}`).Text; lines != "" {
		t.Errorf("list_mocks after clear_mocks all: %q", lines)
	}
	_, err := runTool(t, env, "clear_mocks", fmt.Sprintf(`{"ids":[%v]}`, id))
	wantCode(t, err, InvalidArgs, "no mock rule")
}

// TestMockGuard checks that a rule for a URL the policy blocks does not
// make it load: not as the tab's page, nor in an iframe.
func TestMockGuard(t *testing.T) {
	t.Parallel()
	site := netSite(t)
	env := mockEnv(t)
	blocked := strings.Replace(site, "127.0.0.1", "blocked.test", 1)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/fifty"))
	mustRun(t, env, "mock_request", `{"url":"http://blocked.test*","body":"<title>pwned</title>mocked","headers":{"Content-Type":"text/html"}}`)
	mustRun(t, env, "mock_request", `{"url":"*/frame","body":"<title>f</title><iframe src='`+blocked+`/x'></iframe>","headers":{"Content-Type":"text/html"}}`)
	args, _ := json.Marshal(map[string]string{"function": fmt.Sprintf("() => { location.href = %q; }", blocked+"/top")})
	_, err := runTool(t, env, "evaluate_script", string(args))
	if err != nil {
		t.Logf("evaluate_script: %v", err)
	}
	netEventually(t, "the blocked navigation to fail", func() bool {
		res := mustCall(t, env, "list_network_requests", `{"url":"blocked.test","includePreserved":true}`)
		return strings.Contains(res.Text, "failed(ERR_BLOCKED_BY_CLIENT")
	})
	if d := mustRun(t, env, "get_url", `{}`); d["title"] == "pwned" {
		t.Fatalf("the mock made a blocked URL load: %v", d)
	}
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/frame"))
	netEventually(t, "the blocked iframe to fail", func() bool {
		res := mustCall(t, env, "list_network_requests", `{"url":"blocked.test"}`)
		return strings.Contains(res.Text, "failed(ERR_BLOCKED_BY_CLIENT")
	})
	if text := mustCall(t, env, "get_text", `{}`).Text; strings.Contains(text, "mocked") {
		t.Errorf("the blocked iframe shows the mock: %q", text)
	}
}

func TestMockRequestRejectArgs(t *testing.T) {
	t.Parallel()
	site := netSite(t)
	env := mockEnv(t)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/fifty"))
	tests := []struct {
		args    string
		code    Code
		mention string
	}{
		{`{"url":""}`, InvalidArgs, "empty"},
		{`{"url":"re:(unclosed"}`, InvalidArgs, "does not compile"},
		{`{"url":"a b"}`, InvalidArgs, "whitespace"},
		{`{"url":"*","action":"continue","failRate":1.5}`, InvalidArgs, "failRate"},
		{`{"url":"*","action":"explode"}`, InvalidArgs, "action"},
		{`{"url":"*","action":"fail","reason":"Kaboom"}`, InvalidArgs, "Kaboom"},
		{`{"url":"*","status":700}`, InvalidArgs, "status"},
		{`{"url":"*","body":"x","json":{}}`, InvalidArgs, "json"},
		{`{"url":"*","bodyPath":"../../etc/passwd"}`, UnsafePath, ""},
		{`{"url":"*","bodyPath":"/etc/passwd"}`, UnsafePath, ""},
		{`{"url":"*","scope":"world"}`, InvalidArgs, "scope"},
		{`{"url":"*","resourceType":"pictures"}`, InvalidArgs, "pictures"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			_, err := runTool(t, env, "mock_request", tt.args)
			wantCode(t, err, tt.code, tt.mention)
		})
	}
	if lines := mustCall(t, env, "list_mocks", `{}`).Text; lines != "" {
		t.Errorf("a refused rule was armed: %q", lines)
	}
}

func TestRequestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    driver.Request
		want string
	}{
		{driver.Request{ID: 3, Method: "GET", Status: 404, Type: "fetch", Size: 1234, Duration: 35 * time.Millisecond, URL: "http://h:1/api/users"},
			"#3 GET 404 fetch 1.2kB 35ms h:1/api/users"},
		{driver.Request{ID: 4, Method: "POST", Failure: "net::ERR_CONNECTION_REFUSED", Type: "xhr", URL: "https://h/x"},
			"#4 POST failed(ERR_CONNECTION_REFUSED) xhr h/x"},
		{driver.Request{ID: 5, Method: "GET", Type: "image", URL: "data:image/png;base64," + strings.Repeat("A", 200)},
			"#5 GET … image data:image/png;base64," + strings.Repeat("A", netLineURL-len("data:image/png;base64,")) + "…"},
	}
	for _, tt := range tests {
		if got := requestLine(tt.r); got != tt.want {
			t.Errorf("requestLine:\n got %q\nwant %q", got, tt.want)
		}
	}
	for ct, want := range map[string]bool{"application/json; charset=utf-8": true, "text/html": true, "application/problem+json": true,
		"image/png": false, "application/octet-stream": false} {
		if got := textType(ct); got != want {
			t.Errorf("textType(%q) = %v, want %v", ct, got, want)
		}
	}
}

// TestNetworkLogChildTargets checks that requests of an out-of-process
// iframe and of a dedicated worker are in their tab's log.
func TestNetworkLogChildTargets(t *testing.T) {
	t.Parallel()
	site := netSite(t)
	env := mockEnv(t)
	port := site[strings.LastIndex(site, ":")+1:]
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/kids?port="+port))
	var text string
	defer func() {
		if t.Failed() {
			t.Logf("the log:\n%s", text)
		}
	}()
	netEventually(t, "the iframe's and the worker's requests", func() bool {
		text = mustCall(t, env, "list_network_requests", `{"pageSize":200}`).Text
		return strings.Contains(text, "other.test:"+port+"/img/kid-") && strings.Contains(text, "/from-worker?n=")
	})
}

// TestMockScopes checks a context rule in a tab opened after it, and that
// a closed tab's rules are pruned and reported by list_mocks.
func TestMockScopes(t *testing.T) {
	t.Parallel()
	site := netSite(t)
	env := mockEnv(t)
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/fifty"))
	mustRun(t, env, "mock_request", `{"url":"*/api/users","json":[{"name":"Ada"}],"scope":"context"}`)
	d := mustRun(t, env, "new_page", fmt.Sprintf(`{"url":%q}`, site+"/users"))
	second := fmt.Sprint(d["id"])
	netEventually(t, "the new tab mocked", func() bool {
		return fmt.Sprint(mustRun(t, env, "get_url", fmt.Sprintf(`{"target":%q}`, second))["title"]) == "status 200"
	})
	mustRun(t, env, "mock_request", fmt.Sprintf(`{"target":%q,"url":"*/nothing","status":204}`, second))
	mustRun(t, env, "close_page", fmt.Sprintf(`{"target":%q}`, second))
	lines := mustCall(t, env, "list_mocks", `{}`).Text
	if !strings.Contains(lines, "pruned (tab closed): #2") || !strings.Contains(lines, "#1 */api/users → fulfill 200") || !strings.Contains(lines, "context") {
		t.Errorf("list_mocks:\n%s\nwant the context rule kept and #2 pruned", lines)
	}
	if lines := mustCall(t, env, "list_mocks", `{}`).Text; strings.Contains(lines, "#2") {
		t.Errorf("the pruned rule is listed again:\n%s", lines)
	}
}

// browserEnv returns the Env of a harness in the package's shared browser
// (a scope of the test's own), with evaluate_script off as by default.
func browserEnv(t *testing.T) *Env {
	t.Helper()
	env := newHarness(t, nil).env
	env.AllowEval = false
	return env
}

// runTool calls a tool and returns its data as decoded JSON.
func runTool(t *testing.T, env *Env, name, args string) (map[string]any, error) {
	t.Helper()
	res, err := toolNamed(t, name).Call(t.Context(), env, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatalf("%s: encoding the result: %v", name, err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	return data, nil
}

// mustRun is runTool failing the test on an error.
func mustRun(t *testing.T, env *Env, name, args string) map[string]any {
	t.Helper()
	data, err := runTool(t, env, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return data
}
