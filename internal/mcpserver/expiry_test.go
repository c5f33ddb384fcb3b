package mcpserver

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// TestSessionExpiryTimer checks the session timeout's clock in a synctest
// bubble, with no browser and no network (the handler is called directly):
// a session used just before the timeout lives on, and one idle for the
// whole timeout is gone, its id refused.
func TestSessionExpiryTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Minute
		// A Manager that never starts a browser: no call here needs one.
		env := &tools.Env{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Browsers: driver.NewManager(browser.NewManager(&browser.Options{ExecPath: "/nonexistent/chromium"}).Backend(), nil)}
		defer env.Browsers.Close()
		h := NewHTTPHandler(PerSession(NewPool(env), "test", tools.All(), nil), HTTPOptions{Token: testToken, SessionTimeout: timeout, Log: env.Log})
		post := func(session, body string) *httptest.ResponseRecorder {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+testToken)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				r.Header.Set("Mcp-Session-Id", session)
				r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w
		}
		w := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
		id := w.Header().Get("Mcp-Session-Id")
		if w.Code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d, session %q: %s", w.Code, id, w.Body)
		}
		if w := post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code >= 300 {
			t.Fatalf("initialized: %d: %s", w.Code, w.Body)
		}
		list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

		time.Sleep(timeout - time.Second) // fake time: idle, but not for the whole timeout
		if w := post(id, list); w.Code != http.StatusOK {
			t.Fatalf("tools/list a second before the timeout: %d: %s", w.Code, w.Body)
		}
		time.Sleep(timeout - time.Second) // fake time: the last request restarted the clock
		if w := post(id, list); w.Code != http.StatusOK {
			t.Fatalf("tools/list within the timeout of the last request: %d: %s", w.Code, w.Body)
		}
		time.Sleep(timeout + time.Second) // fake time: idle past the timeout
		synctest.Wait()
		if w := post(id, list); w.Code != http.StatusNotFound {
			t.Errorf("tools/list after the timeout: %d: %s, want 404 (session gone)", w.Code, w.Body)
		}
	})
}
