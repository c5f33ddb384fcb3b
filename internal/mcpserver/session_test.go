package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// shared is the package's one browser, started on first use and closed
// by TestMain.
var shared struct {
	once sync.Once
	env  *tools.Env
	err  error
}

func TestMain(m *testing.M) {
	browsertest.Main(m, func() error {
		if shared.env == nil {
			return nil
		}
		err := shared.env.Browsers.Close()
		shared.env.Artifacts.Close()
		os.RemoveAll(shared.env.Artifacts.Dir())
		if err != nil {
			return fmt.Errorf("closing the shared browser: %w", err)
		}
		return nil
	})
}

// browserEnv returns the Env of the package's shared browser. Each test
// serves it through its own sessions, so tests see only their own tabs.
func browserEnv(t *testing.T) *tools.Env {
	t.Helper()
	exe := browsertest.ExecPath(t)
	shared.once.Do(func() {
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		dir, err := os.MkdirTemp("", "cdpkit-mcpserver-")
		if err != nil {
			shared.err = err
			return
		}
		artifacts, err := policy.OpenArtifacts(dir)
		if err != nil {
			shared.err = err
			return
		}
		browsers := driver.NewManager(browser.NewManager(&browser.Options{ExecPath: exe, Logger: log}).Backend(), nil)
		shared.env = &tools.Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: 90 * time.Second} // generous: CI machines are loaded
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.env
}

// pages serves /set (sets a cookie), /show (the Cookie header as the
// title) and /slow (answers after 1.5 s).
func pages(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/"})
		fmt.Fprint(w, "<title>set</title>")
	})
	mux.HandleFunc("/show", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>cookie=%s</title>", html.EscapeString(r.Header.Get("Cookie")))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "<title>slow</title><p>done</p>")
	})
	return browsertest.ServerHandler(t, mux).URL
}

// serveSessions serves env over HTTP with a server per session.
func serveSessions(t *testing.T, env *tools.Env, o *SessionOptions) string {
	t.Helper()
	return serveSessionsFor(t, env, o, 0)
}

// serveSessionsFor is serveSessions whose sessions end after idle.
func serveSessionsFor(t *testing.T, env *tools.Env, o *SessionOptions, idle time.Duration) string {
	t.Helper()
	h := NewHTTPHandler(PerSession(NewPool(env), "test", tools.All(), o), HTTPOptions{Token: testToken, SessionTimeout: idle, Log: env.Log})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// connect opens an MCP session over HTTP. Without the standalone SSE
// stream, a notification reaches the client only on its call's own stream.
func connect(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearer{testToken}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call runs a tool; it fails the test on a protocol error, not on a tool
// error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok runs a tool that must succeed and decodes its structured content
// into v.
func ok(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, v any) {
	t.Helper()
	res := call(t, cs, name, args)
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	if v != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: decoding %q: %v", name, text, err)
		}
	}
}

type pageList struct {
	Pages []driver.Page `json:"pages"`
}

func ids(pl pageList) []string {
	var out []string
	for _, p := range pl.Pages {
		out = append(out, string(p.ID))
	}
	return out
}

func TestHTTPSessionsHaveTheirOwnTabs(t *testing.T) {
	env := browserEnv(t)
	url := serveSessions(t, env, nil)
	a, b := connect(t, url, nil), connect(t, url, nil)

	// Each session's first call gets it a tab of its own.
	var la, lb pageList
	ok(t, a, "take_snapshot", nil, nil)
	ok(t, a, "list_pages", nil, &la)
	ok(t, b, "list_pages", nil, &lb)
	if len(lb.Pages) != 0 {
		t.Errorf("a new session lists %v, want no tabs (not another session's)", ids(lb))
	}
	var opened struct{ ID string }
	ok(t, b, "new_page", nil, &opened)
	ok(t, b, "list_pages", nil, &lb)
	if len(la.Pages) != 1 || len(lb.Pages) != 1 || lb.Pages[0].ID == la.Pages[0].ID || string(lb.Pages[0].ID) != opened.ID {
		t.Fatalf("session a lists %v, b lists %v (opened %s); want one tab each, their own", ids(la), ids(lb), opened.ID)
	}
	if !la.Pages[0].Active || !lb.Pages[0].Active {
		t.Errorf("each session's only tab should be its active one: a %+v, b %+v", la.Pages[0], lb.Pages[0])
	}

	// Neither can name the other's tab.
	other := string(la.Pages[0].ID)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"select_page", map[string]any{"target": other}},
		{"close_page", map[string]any{"target": other}},
		{"take_snapshot", map[string]any{"target": other}},
		{"navigate_page", map[string]any{"target": other, "url": "about:blank"}},
		{"take_snapshot", map[string]any{"target": "index:1"}},
	} {
		res := call(t, b, tc.tool, tc.args)
		sc, _ := json.Marshal(res.StructuredContent)
		if !res.IsError || !strings.Contains(string(sc), `"TARGET_NOT_FOUND"`) {
			t.Errorf("%s(%v) from another session = %s, want TARGET_NOT_FOUND", tc.tool, tc.args, res.Content[0].(*mcp.TextContent).Text)
		}
	}
	ok(t, a, "list_pages", nil, &la)
	if len(la.Pages) != 1 || string(la.Pages[0].ID) != other {
		t.Errorf("after b's attempts, a lists %v, want its tab %s", ids(la), other)
	}

	// Ending a session closes its tabs.
	a.Close()
	waitClosed(t, env, other)
	ok(t, b, "list_pages", nil, &lb)
	if len(lb.Pages) != 1 {
		t.Errorf("closing session a changed b's tabs: %v", ids(lb))
	}
}

// waitClosed waits up to 30 s for the tab id to be gone from the browser.
func waitClosed(t *testing.T, env *tools.Env, id string) {
	t.Helper()
	browsertest.Eventually(t, 30*time.Second, func() error {
		all, err := browser.ManagerOf(env.Browsers.Backend()).Current().Pages(t.Context())
		if err != nil {
			return err
		}
		if slices.ContainsFunc(all, func(p driver.Page) bool { return string(p.ID) == id }) {
			return errors.New("the tab of an ended session is still open")
		}
		return nil
	})
}

// TestHTTPSessionExpiry checks that a session idle past the timeout ends
// and its tabs close, and that its id then opens nothing.
func TestHTTPSessionExpiry(t *testing.T) {
	env := browserEnv(t)
	cs := connect(t, serveSessionsFor(t, env, nil, time.Second), nil)
	var pl pageList
	ok(t, cs, "list_pages", nil, nil)
	ok(t, cs, "take_snapshot", nil, nil)
	ok(t, cs, "list_pages", nil, &pl)
	if len(pl.Pages) != 1 {
		t.Fatalf("the session lists %v, want one tab", ids(pl))
	}
	waitClosed(t, env, string(pl.Pages[0].ID))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "take_snapshot"}); err == nil {
		t.Errorf("a call in the expired session succeeded")
	}
}

func TestHTTPIsolatedSessions(t *testing.T) {
	base := pages(t)
	env := browserEnv(t)
	tests := []struct {
		isolate bool
		want    string // the title the second session sees
	}{
		{false, "cookie=who=first"},
		{true, "cookie="},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("isolate=%v", tt.isolate), func(t *testing.T) {
			url := serveSessions(t, env, &SessionOptions{Isolate: tt.isolate})
			first, second := connect(t, url, nil), connect(t, url, nil)
			ok(t, first, "navigate_page", map[string]any{"url": base + "/set?v=first"}, nil)
			var nav struct{ Title string }
			ok(t, second, "navigate_page", map[string]any{"url": base + "/show"}, &nav)
			if nav.Title != tt.want {
				t.Errorf("the second session sees %q, want %q", nav.Title, tt.want)
			}
			ok(t, first, "navigate_page", map[string]any{"url": base + "/show"}, &nav)
			if want := "cookie=who=first"; nav.Title != want {
				t.Errorf("the first session sees %q, want %q", nav.Title, want)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	base := pages(t)
	env := browserEnv(t)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	cs := connect(t, serveSessions(t, env, nil), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		},
	})
	params := &mcp.CallToolParams{Name: "navigate_page", Arguments: map[string]any{"url": base + "/slow"}}
	params.SetProgressToken("nav-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("navigate_page: %v %v", err, res)
	}
	// Notifications may trail the result a little; the checks below say
	// what is missing if they never come.
	browsertest.Poll(30*time.Second, func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(got) < 3 {
			return errors.New("fewer than 3 notifications")
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	var msgs []string
	last := 0.0
	for _, p := range got {
		msgs = append(msgs, p.Message)
		if p.ProgressToken != "nav-1" {
			t.Errorf("progress token %v, want nav-1", p.ProgressToken)
		}
		if p.Progress <= last {
			t.Errorf("progress %v after %v: want it to increase", p.Progress, last)
		}
		last = p.Progress
	}
	// A stage, a heartbeat during the 1.5 s load, and a later stage.
	joined := strings.Join(msgs, " | ")
	for _, want := range []string{"loading", "loading (", "loaded"} {
		if !strings.Contains(joined, want) {
			t.Errorf("progress messages %q lack %q", joined, want)
		}
	}

	// Without a token, no progress is sent.
	n := len(got)
	mu.Unlock()
	ok(t, cs, "navigate_page", map[string]any{"url": base + "/show"}, nil)
	// The behaviour under test is that nothing is sent, which no event
	// signals: give a notification that trails the result time to arrive.
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	if len(got) != n {
		t.Errorf("a call without a progress token got %d notifications", len(got)-n)
	}
}

// TestCancelStopsTheWork cancels a long wait_for from the client and checks
// that the server stops waiting at once: the next call on the tab
// succeeds promptly, and no goroutine is left waiting in the browser.
func TestCancelStopsTheWork(t *testing.T) {
	env := browserEnv(t)
	cs := connect(t, serveSessions(t, env, nil), nil)
	ok(t, cs, "take_snapshot", nil, nil) // start the browser, open the tab

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for",
			Arguments: map[string]any{"text": []string{"never appears"}, "timeout": 25000}})
		done <- err
	}()
	// Let the wait start in the server, then cancel it.
	waitGoroutine(t, "(*Tab).WaitFor", true)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("the cancelled call returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return within 5 s")
	}
	waitGoroutine(t, "(*Tab).WaitFor", false)

	ok(t, cs, "take_snapshot", nil, nil)
}

// waitGoroutine waits up to 30 s until some goroutine's stack contains fn
// (present) or none does (!present).
func waitGoroutine(t *testing.T, fn string, present bool) {
	t.Helper()
	buf := make([]byte, 1<<22)
	browsertest.Eventually(t, 30*time.Second, func() error {
		stacks := string(buf[:runtime.Stack(buf, true)])
		if strings.Contains(stacks, fn) != present {
			return fmt.Errorf("a goroutine in %s: %v, want %v", fn, !present, present)
		}
		return nil
	})
}
