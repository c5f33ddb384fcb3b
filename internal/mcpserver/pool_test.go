package mcpserver

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
	"github.com/cdpkit/cdpkit/internal/sysproc"
	"github.com/cdpkit/cdpkit/internal/tools"
)

func TestPoolPlacement(t *testing.T) {
	envs := []*tools.Env{{}, {}, {}}
	p := NewPool(envs...)
	var done []func()
	for range 5 {
		_, d := p.place()
		done = append(done, d)
	}
	if got, want := p.Loads(), []int{2, 2, 1}; !slices.Equal(got, want) {
		t.Fatalf("loads after 5 sessions = %v, want %v", got, want)
	}
	done[0]()
	done[0]() // once only
	if i, _ := p.place(); i != 0 {
		t.Errorf("after the first session ended, the next went to %d, want 0 (the least loaded)", i)
	}
}

// TestPool runs 9 HTTP sessions on a pool of 3 browsers of their own
// (this test kills one): each session sees only its own tabs; the tenth
// over MaxSessions 9 gets LIMIT_REACHED; killing one browser resets
// exactly the sessions placed on it, and the others go on untouched.
func TestPool(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	artifacts, err := policy.OpenArtifacts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { artifacts.Close() })
	var envs []*tools.Env
	for range 3 {
		m := driver.NewManager(browser.NewManager(&browser.Options{ExecPath: exe, Logger: log}).Backend(), nil)
		t.Cleanup(func() { m.Close() })
		envs = append(envs, &tools.Env{Browsers: m, Artifacts: artifacts, Log: log, Timeout: 90 * time.Second})
	}
	pool := NewPool(envs...)
	srv := httptest.NewServer(NewHTTPHandler(PerSession(pool, "test", tools.All(), &SessionOptions{InstanceID: "node-a"}),
		HTTPOptions{Token: testToken, MaxSessions: 9, Log: log}))
	t.Cleanup(srv.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/p", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>page %s</title><p>session %[1]s</p>", html.EscapeString(r.URL.Query().Get("n")))
	})
	site := browsertest.ServerHandler(t, mux).URL

	var sessions []*mcp.ClientSession
	for range 9 {
		cs := connect(t, srv.URL, nil)
		if !strings.HasPrefix(cs.ID(), "node-a.") {
			t.Errorf("session id %q does not start with the instance id node-a.", cs.ID())
		}
		sessions = append(sessions, cs)
	}
	if got, want := pool.Loads(), []int{3, 3, 3}; !slices.Equal(got, want) {
		t.Fatalf("sessions per browser = %v, want %v", got, want)
	}
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	_, err = mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{testToken}}, MaxRetries: -1}, nil)
	if err == nil || !strings.Contains(err.Error(), "LIMIT_REACHED") || !strings.Contains(err.Error(), "--max-sessions") {
		t.Fatalf("a tenth session over MaxSessions 9: %v, want LIMIT_REACHED naming --max-sessions", err)
	}

	each := func(f func(i int, cs *mcp.ClientSession)) {
		var wg sync.WaitGroup
		for i, cs := range sessions {
			wg.Go(func() { f(i, cs) })
		}
		wg.Wait()
	}
	url := func(i int) string { return fmt.Sprintf("%s/p?n=%d", site, i) }
	each(func(i int, cs *mcp.ClientSession) {
		ok(t, cs, "navigate_page", map[string]any{"url": url(i)}, nil)
	})
	each(func(i int, cs *mcp.ClientSession) {
		var pl pageList
		ok(t, cs, "list_pages", nil, &pl)
		if len(pl.Pages) != 1 || pl.Pages[0].URL != url(i) {
			t.Errorf("session %d lists %+v, want only its own tab at %s", i, pl.Pages, url(i))
		}
	})
	// Each browser holds the tabs of the 3 sessions placed on it.
	on := map[int]int{} // session → browser
	for b, e := range envs {
		all, err := browser.ManagerOf(e.Browsers.Backend()).Current().Pages(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range all {
			for i := range sessions {
				if p.URL == url(i) {
					on[i] = b
					n++
				}
			}
		}
		if n != 3 {
			t.Errorf("browser %d holds %d sessions' tabs, want 3", b, n)
		}
	}
	if len(on) != 9 {
		t.Fatalf("found the tabs of %d sessions in the browsers, want 9", len(on))
	}

	// Kill browser 0: its sessions are reset, the others are not.
	dead := browser.ManagerOf(envs[0].Browsers.Backend()).Current()
	if err := sysproc.Kill(dead.PID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-dead.Done():
	case <-t.Context().Done():
		t.Fatal("the killed browser's connection did not end")
	}
	each(func(i int, cs *mcp.ClientSession) {
		res := call(t, cs, "list_pages", nil)
		text := res.Content[0].(*mcp.TextContent).Text
		reset := strings.HasPrefix(text, "sessionReset: true\n")
		switch {
		case res.IsError:
			t.Errorf("session %d: list_pages after browser 0 died: %s", i, text)
		case on[i] == 0 && (!reset || strings.Contains(text, url(i))):
			t.Errorf("session %d was on the killed browser: list_pages = %s, want sessionReset and no old tab", i, text)
		case on[i] != 0 && (reset || !strings.Contains(text, url(i))):
			t.Errorf("session %d was on a live browser: list_pages = %s, want its tab and no sessionReset", i, text)
		}
	})
	// The reset sessions carry on, on the restarted browser.
	each(func(i int, cs *mcp.ClientSession) {
		ok(t, cs, "navigate_page", map[string]any{"url": url(i) + "&again=1"}, nil)
		if res := call(t, cs, "take_snapshot", nil); res.IsError || strings.Contains(res.Content[0].(*mcp.TextContent).Text, "sessionReset") {
			t.Errorf("session %d: take_snapshot after recovering = %s", i, res.Content[0].(*mcp.TextContent).Text)
		}
	})
}

// TestMaxTabsPerSession checks that a session over MaxTabs gets
// LIMIT_REACHED naming the flag, and that closing a tab makes room.
func TestMaxTabsPerSession(t *testing.T) {
	t.Parallel()
	env := browserEnv(t)
	cs := connect(t, serveSessions(t, env, &SessionOptions{MaxTabs: 2}), nil)
	ok(t, cs, "take_snapshot", nil, nil) // the session's first tab
	var second struct{ ID string }
	ok(t, cs, "new_page", nil, &second)
	res := call(t, cs, "new_page", nil)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "[LIMIT_REACHED]") || !strings.Contains(text, "--max-tabs-per-session") {
		t.Fatalf("a third tab with MaxTabs 2: %s, want LIMIT_REACHED naming --max-tabs-per-session", text)
	}
	if e, _ := res.StructuredContent.(map[string]any); e["recoverable"] != true {
		t.Errorf("LIMIT_REACHED structured content %v, want recoverable", res.StructuredContent)
	}
	ok(t, cs, "close_page", map[string]any{"target": second.ID}, nil)
	ok(t, cs, "new_page", nil, nil)
}
