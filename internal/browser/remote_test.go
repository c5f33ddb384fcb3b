package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// pool is a browserless-style websocket pool in front of a real Chromium:
// it wants a token in the query and an X-Pool-Key header, answers 429
// with Retry-After while busy is above zero, and proxies the websocket.
type pool struct {
	url  string // ws://…/devtools/browser/<id>?token=s3cret
	busy atomic.Int32
	wait string // the Retry-After it sends
}

const (
	poolToken = "s3cret-token"
	poolKey   = "k3y-value"
)

func startPool(t *testing.T, ext *external, retryAfter string) *pool {
	t.Helper()
	target, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(ext.port))
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.URL.RawQuery = "" // Chromium knows nothing of the token
		r.Out.Header.Del("X-Pool-Key")
	}}
	p := &pool{wait: retryAfter}
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != poolToken || r.Header.Get("X-Pool-Key") != poolKey {
			http.Error(w, "no or wrong credentials", http.StatusUnauthorized)
			return
		}
		if p.busy.Add(-1) >= 0 {
			w.Header().Set("Retry-After", p.wait)
			http.Error(w, "all browsers in use", http.StatusTooManyRequests)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	p.url = "ws" + strings.TrimPrefix(srv.URL, "http") + ext.wsPath + "?token=" + poolToken
	return p
}

// grid is a Selenium-Grid-4-shaped remote end: POST /session answers with
// se:cdp pointing at a real Chromium, DELETE is recorded.
type grid struct {
	url string

	mu      sync.Mutex
	caps    map[string]json.RawMessage // guarded by mu; the last session's alwaysMatch
	deleted []string                   // guarded by mu
	fail    string                     // "notcreated" or "busy" makes POST /session fail
}

func startGrid(t *testing.T, ext *external, fail string) *grid {
	t.Helper()
	g := &grid{fail: fail}
	n := 0
	cdp := "ws://127.0.0.1:" + strconv.Itoa(ext.port) + ext.wsPath
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Capabilities struct {
				AlwaysMatch map[string]json.RawMessage `json:"alwaysMatch"`
			} `json:"capabilities"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		g.mu.Lock()
		defer g.mu.Unlock()
		g.caps = req.Capabilities.AlwaysMatch
		switch g.fail {
		case "notcreated":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"value":{"error":"session not created","message":"Could not start a new session. New session request timed out\nBuild info: …","stacktrace":""}}`))
			return
		case "busy":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		n++
		json.NewEncoder(w).Encode(map[string]any{"value": map[string]any{
			"sessionId":    "grid-" + strconv.Itoa(n),
			"capabilities": map[string]any{"browserName": "chrome", "se:cdp": cdp},
		}})
	})
	mux.HandleFunc("DELETE /session/{id}", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.deleted = append(g.deleted, r.PathValue("id"))
		g.mu.Unlock()
		w.Write([]byte(`{"value":null}`))
	})
	g.url = browsertest.ServerHandler(t, mux).URL
	return g
}

func (g *grid) state() (map[string]json.RawMessage, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.caps, slices.Clone(g.deleted)
}

// TestRemoteEndpoints attaches through a token-and-header pool and a
// Grid-shaped WebDriver end, both in front of one real Chromium.
func TestRemoteEndpoints(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, os.DirFS("testdata"))
	ext := startExternal(t)
	headers := http.Header{"X-Pool-Key": {poolKey}}

	drive := func(t *testing.T, b *Browser) {
		t.Helper()
		tab, err := b.NewTab(t.Context())
		if err != nil {
			t.Fatalf("NewTab: %v", err)
		}
		res, err := tab.Navigate(t.Context(), srv.URL+"/bravo.html")
		if err != nil || res.Title != "Bravo page" {
			t.Errorf("Navigate = %+v, %v; want the Bravo page", res, err)
		}
		if err := b.CloseTab(t.Context(), tab); err != nil {
			t.Errorf("CloseTab: %v", err)
		}
	}

	t.Run("ws-header and token", func(t *testing.T) {
		p := startPool(t, ext, "1")
		var logs bytes.Buffer
		b, err := Start(t.Context(), &Options{WSEndpoint: p.url, WSHeaders: headers, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		drive(t, b)
		b.Close()
		if strings.Contains(logs.String(), poolToken) || strings.Contains(logs.String(), poolKey) {
			t.Errorf("the logs show a credential:\n%s", logs.String())
		}
	})

	t.Run("refused without the header", func(t *testing.T) {
		p := startPool(t, ext, "1")
		b, err := Start(t.Context(), &Options{WSEndpoint: p.url, LaunchTimeout: 20 * time.Second})
		if err == nil {
			b.Close()
			t.Fatal("Start without X-Pool-Key succeeded, want it refused")
		}
		var nb *driver.NoBrowserError
		if !errors.As(err, &nb) || !strings.Contains(nb.Reason, "401") || !strings.Contains(nb.Hint, "--ws-header") {
			t.Errorf("err = %v, want a NoBrowserError naming 401 and hinting at --ws-header", err)
		}
		if strings.Contains(err.Error(), poolToken) {
			t.Errorf("err = %v shows the token", err)
		}
	})

	t.Run("429 is busy", func(t *testing.T) {
		p := startPool(t, ext, "3600")
		p.busy.Store(1000)
		m := NewManager(&Options{WSEndpoint: p.url, WSHeaders: headers})
		defer m.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		_, err := m.Browser(ctx)
		var be *driver.BusyError
		if !errors.As(err, &be) || be.Status != http.StatusTooManyRequests || be.RetryAfter != time.Hour {
			t.Fatalf("Browser = %v, want a BusyError with 429 and Retry-After 1h", err)
		}
		if ctx.Err() != nil {
			t.Errorf("Browser waited out the call's deadline, want BROWSER_BUSY while it can still be reported")
		}
		if strings.Contains(err.Error(), poolToken) {
			t.Errorf("err = %v shows the token", err)
		}
	})

	t.Run("busy then free within the deadline", func(t *testing.T) {
		p := startPool(t, ext, "1")
		p.busy.Store(2)
		m := NewManager(&Options{WSEndpoint: p.url, WSHeaders: headers})
		defer m.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		b, err := m.Browser(ctx)
		if err != nil {
			t.Fatalf("Browser = %v, want it to retry after Retry-After and connect", err)
		}
		drive(t, b)
	})

	t.Run("grid se:cdp", func(t *testing.T) {
		g := startGrid(t, ext, "")
		ledger := t.TempDir()
		m := NewManager(&Options{WebDriverURL: g.url, WebDriverLedger: ledger,
			WebDriverCaps: map[string]json.RawMessage{"se:name": json.RawMessage(`"cdpkit-test"`),
				"goog:chromeOptions": json.RawMessage(`{"args":["--extra-flag"]}`)}})
		b, err := m.Browser(t.Context())
		if err != nil {
			t.Fatalf("Browser: %v", err)
		}
		drive(t, b)
		caps, _ := g.state()
		var chrome struct {
			Args []string `json:"args"`
		}
		json.Unmarshal(caps["goog:chromeOptions"], &chrome)
		for _, want := range []string{"--headless", "--disable-background-networking", "--extra-flag"} {
			if !slices.Contains(chrome.Args, want) {
				t.Errorf("goog:chromeOptions.args = %v, want %s among them", chrome.Args, want)
			}
		}
		if string(caps["se:name"]) != `"cdpkit-test"` || string(caps["browserName"]) != `"chrome"` {
			t.Errorf("capabilities = %s, want browserName chrome and se:name from the caller", caps)
		}
		if files, _ := os.ReadDir(ledger); len(files) != 1 {
			t.Errorf("ledger holds %d files while the session lives, want 1", len(files))
		}
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if _, deleted := g.state(); !slices.Equal(deleted, []string{"grid-1"}) {
			t.Errorf("deleted sessions = %v, want [grid-1]", deleted)
		}
		if files, _ := os.ReadDir(ledger); len(files) != 0 {
			t.Errorf("ledger holds %d files after Close, want none", len(files))
		}
		if !ext.alive() {
			t.Error("the grid's browser is gone; closing a session is the grid's business")
		}
	})

	t.Run("grid queue timeout", func(t *testing.T) {
		// The Grid's own --session-request-timeout: every slot stayed
		// busy, which is BROWSER_BUSY (issue #42), not a dead end.
		g := startGrid(t, ext, "notcreated")
		_, err := Start(t.Context(), &Options{WebDriverURL: g.url, WebDriverLedger: t.TempDir()})
		var be *driver.BusyError
		if !errors.As(err, &be) || be.Status != 0 {
			t.Errorf("err = %v, want a BusyError for a queued request", err)
		}
	})

	t.Run("grid busy", func(t *testing.T) {
		g := startGrid(t, ext, "busy")
		_, err := Start(t.Context(), &Options{WebDriverURL: g.url, WebDriverLedger: t.TempDir()})
		var be *driver.BusyError
		if !errors.As(err, &be) || be.Status != http.StatusServiceUnavailable || be.RetryAfter != time.Hour {
			t.Errorf("err = %v, want a BusyError with 503 and Retry-After 1h", err)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"7", 7 * time.Second}, {"0", 0}, {"-3", 0}, {"soon", 0},
		{"Thu, 03 Dec 2026 10:00:30 GMT", 30 * time.Second},
		{"Thu, 03 Dec 2026 09:00:00 GMT", 0},
	} {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
