package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// The launch options of issue #23 item 3, each through the real binary and
// a real Chromium.

// evalJSON runs fn with evaluate_script and decodes its value into out.
func (c *child) evalJSON(t *testing.T, fn string, out any) {
	t.Helper()
	res := c.call(t, "evaluate_script", map[string]any{"function": fn})
	if res.IsError {
		t.Fatalf("evaluate_script: %s", text(t, res))
	}
	var r struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data(t, res), &r); err != nil {
		t.Fatalf("evaluate_script result %q: %v", text(t, res), err)
	}
	if err := json.Unmarshal(r.Value, out); err != nil {
		t.Fatalf("evaluate_script value %s: %v", r.Value, err)
	}
}

func (c *child) mustCall(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res := c.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s: %s", name, text(t, res))
	}
	return res
}

// TestLaunchOptions checks --viewport, --user-agent, --lang and --timezone
// in one browser: what the page measures and reads, what the server
// receives, and the screenshot's size.
func TestLaunchOptions(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ua, lang string
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ua, lang = r.Header.Get("User-Agent"), r.Header.Get("Accept-Language")
		mu.Unlock()
		fmt.Fprint(w, `<!doctype html><title>opts</title><body style="margin:0;background:#2a6">hi</body>`)
	}))
	const agent = "cdpkit-test-agent/1.0"
	c := startMCP(t, "--allow-eval", "--viewport", "800x600", "--user-agent", agent, "--lang", "de-DE", "--timezone", "Asia/Tokyo")
	c.mustCall(t, "navigate_page", map[string]any{"url": srv.URL})

	var got struct {
		Width, Height int
		UA, Lang, TZ  string
		Locale        string
	}
	c.evalJSON(t, `() => ({Width: innerWidth, Height: innerHeight, UA: navigator.userAgent, Lang: navigator.language,
		TZ: Intl.DateTimeFormat().resolvedOptions().timeZone, Locale: Intl.DateTimeFormat().resolvedOptions().locale})`, &got)
	want := struct {
		Width, Height int
		UA, Lang, TZ  string
		Locale        string
	}{800, 600, agent, "de-DE", "Asia/Tokyo", "de-DE"}
	if got != want {
		t.Errorf("the page reads %+v, want %+v", got, want)
	}
	mu.Lock()
	if ua != agent || !strings.HasPrefix(lang, "de-DE") {
		t.Errorf("the server got User-Agent %q and Accept-Language %q, want %q and de-DE…", ua, lang, agent)
	}
	mu.Unlock()

	res := c.mustCall(t, "take_screenshot", map[string]any{})
	img, ok := res.Content[len(res.Content)-1].(*mcp.ImageContent)
	if !ok {
		t.Fatalf("take_screenshot's last content is %T, want an image", res.Content[len(res.Content)-1])
	}
	decoded, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	if b := decoded.Bounds(); b.Dx() != 800 || b.Dy() != 600 {
		t.Errorf("screenshot is %dx%d, want 800x600", b.Dx(), b.Dy())
	}

	// emulate's reset goes back to --viewport, not to the window.
	c.mustCall(t, "resize_page", map[string]any{"width": 500, "height": 400})
	c.mustCall(t, "resize_page", map[string]any{"reset": true})
	var size [2]int
	c.evalJSON(t, `() => [innerWidth, innerHeight]`, &size)
	if size != [2]int{800, 600} {
		t.Errorf("after a viewport reset the page is %v, want [800 600]", size)
	}
}

// testProxy is a loopback HTTP proxy that logs each request it forwards:
// "GET http://host/path" for plain http, "CONNECT host:port" for tunnels.
func testProxy(t *testing.T) (addr string, log func() []string) {
	var mu sync.Mutex
	var seen []string
	direct := &http.Transport{Proxy: nil}
	t.Cleanup(direct.CloseIdleConnections)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Method == http.MethodConnect {
			seen = append(seen, "CONNECT "+r.Host)
		} else {
			seen = append(seen, r.Method+" "+r.URL.String())
		}
		mu.Unlock()
		if r.Method == http.MethodConnect {
			up, err := net.Dial("tcp", r.Host)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				up.Close()
				return
			}
			conn.Write([]byte("HTTP/1.1 200 OK\r\n\r\n"))
			go func() { io.Copy(up, buf); up.Close() }()
			go func() { io.Copy(conn, up); conn.Close() }()
			return
		}
		r.RequestURI = ""
		resp, err := direct.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestLaunchProxyServer checks that --proxy-server chains behind the
// egress proxy: a plain http page and an https page (self-signed, so also
// --ignore-https-errors) load through the test proxy, which logs them.
// Loopback pages skip a proxy unless the bypass list says <-loopback>.
func TestLaunchProxyServer(t *testing.T) {
	t.Parallel()
	page := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>via proxy</title>hello`)
	}))
	tlsPage := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>tls via proxy</title>hello`)
	}))
	t.Cleanup(tlsPage.Close)
	proxy, log := testProxy(t)
	c := startMCP(t, "--proxy-server", "http://"+proxy, "--proxy-bypass", "<-loopback>", "--ignore-https-errors")

	res := c.mustCall(t, "navigate_page", map[string]any{"url": page.URL + "/plain"})
	if !strings.Contains(text(t, res), "via proxy") {
		t.Errorf("navigate_page = %s, want the page's title", text(t, res))
	}
	res = c.mustCall(t, "navigate_page", map[string]any{"url": tlsPage.URL + "/secure"})
	if !strings.Contains(text(t, res), "tls via proxy") {
		t.Errorf("navigate_page over https = %s, want the page's title", text(t, res))
	}
	got := log()
	for _, want := range []string{"GET " + page.URL + "/plain", "CONNECT " + tlsPage.Listener.Addr().String()} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("the proxy logged %q, want %q among them", got, want)
		}
	}
}

// TestLaunchHeadedNoDisplay checks that --headed without a display fails
// at once with NO_DISPLAY and a hint, before any browser starts.
func TestLaunchHeadedNoDisplay(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "mcp", "--headed")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("cdpkit mcp --headed without a display: %v, want exit status 2", err)
	}
	for _, want := range []string{"[NO_DISPLAY]", "DISPLAY", "xvfb-run"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr = %q, want it to contain %q", stderr.String(), want)
		}
	}
}

// TestLaunchUserDataDir checks that a --user-data-dir outlives cdpkit with
// its cookies, and that a second cdpkit on it, while the first runs, gets
// PROFILE_IN_USE naming the holding browser's pid.
func TestLaunchUserDataDir(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "kept", Value: "yes", MaxAge: 3600, Path: "/"})
		}
		c, _ := r.Cookie("kept")
		v := "none"
		if c != nil {
			v = c.Value
		}
		fmt.Fprintf(w, `<!doctype html><title>cookie %s</title>`, v)
	}))
	profile := filepath.Join(t.TempDir(), "profile")
	// The browser's command line, not cdpkit's (which has a space).
	browserArg := "--user-data-dir=" + profile
	stop := func(c *child) {
		c.session.Close()
		browsertest.WaitNoProcesses(t, browserArg, browsertest.ProcWait)
	}

	first := startMCP(t, "--user-data-dir", profile)
	if res := first.mustCall(t, "navigate_page", map[string]any{"url": srv.URL + "/set"}); !strings.Contains(text(t, res), "cookie none") {
		t.Fatalf("first visit = %s, want no cookie yet", text(t, res))
	}
	stop(first)
	if _, err := os.Stat(filepath.Join(profile, "Default")); err != nil {
		t.Fatalf("the profile is gone after cdpkit exited: %v", err)
	}

	second := startMCP(t, "--user-data-dir", profile)
	if res := second.mustCall(t, "navigate_page", map[string]any{"url": srv.URL + "/get"}); !strings.Contains(text(t, res), "cookie yes") {
		t.Errorf("visit in a second cdpkit = %s, want the cookie kept in the profile", text(t, res))
	}
	holder := 0
	for _, pid := range browsertest.ProcessesMatching(browserArg) {
		if cmdline, err := sysproc.Cmdline(pid); err == nil && !strings.Contains(cmdline, "--type=") {
			holder = pid
		}
	}
	if holder == 0 {
		t.Fatal("no browser process on the profile")
	}

	third := startMCP(t, "--user-data-dir", profile)
	res := third.call(t, "list_pages", map[string]any{})
	got := text(t, res)
	if !res.IsError || !strings.HasPrefix(got, "[PROFILE_IN_USE]") || !strings.Contains(got, fmt.Sprintf("pid %d", holder)) {
		t.Errorf("a third cdpkit on the held profile: %s, want PROFILE_IN_USE naming pid %d", got, holder)
	}
	stop(second)
	if _, err := os.Stat(filepath.Join(profile, "Default")); err != nil {
		t.Errorf("the profile is gone after the second cdpkit exited: %v", err)
	}
}

// TestLaunchDevice checks that --device emulates the preset in every tab:
// a mobile page measures the phone's width, pixel ratio and touch.
func TestLaunchDevice(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width"><title>device</title>hi`)
	}))
	c := startMCP(t, "--allow-eval", "--device", "mobile")
	c.mustCall(t, "navigate_page", map[string]any{"url": srv.URL})
	var got struct {
		Width int
		Ratio float64
		Touch bool
	}
	c.evalJSON(t, `() => ({Width: innerWidth, Ratio: devicePixelRatio, Touch: navigator.maxTouchPoints > 0})`, &got)
	if got.Width != 390 || got.Ratio != 3 || !got.Touch {
		t.Errorf("the page measures %+v, want width 390, ratio 3 and touch (the mobile preset)", got)
	}
}
