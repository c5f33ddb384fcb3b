package mcpserver

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// failAfter bounds how long a test waits for an answer that must come;
// the tests fail on a missing answer, never on a slow one.
const failAfter = 30 * time.Second

// limitedServer serves one cheap tool ("count") behind the handler with
// o and, unless l is nil, LimitListener with l, wired as cdpkit serve
// wires them.
func limitedServer(t *testing.T, o HTTPOptions, l *ConnLimits) *httptest.Server {
	t.Helper()
	newServer := func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
		s.AddTool(&mcp.Tool{Name: "count", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		return s
	}
	o.Token = testToken
	o.Log = slog.New(slog.DiscardHandler)
	srv := httptest.NewUnstartedServer(NewHTTPHandler(newServer, o))
	if l != nil {
		srv.Listener = LimitListener(srv.Listener, *l)
		srv.Config.ConnContext = ConnContext
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// rawRequest writes head (and body) on a new connection and returns the
// status line of the answer and whether the server then closed the
// connection.
func rawRequest(t *testing.T, c net.Conn, head, body string) (status string, closed bool) {
	t.Helper()
	c.SetDeadline(time.Now().Add(failAfter))
	if _, err := io.WriteString(c, head+body); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = br.ReadByte()
	return resp.Status, err == io.EOF
}

func dial(t *testing.T, srv *httptest.Server, from string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func postHead(token string, length int) string {
	return "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " +
		strconv.Itoa(length) + "\r\n\r\n"
}

// TestHTTPUnauthenticatedSlowBody checks that a request with a wrong token
// is answered 401 from its headers alone and its connection closed, while
// its body has not arrived (issue #25 item 6).
func TestHTTPUnauthenticatedSlowBody(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{}, nil)
	c := dial(t, srv, "127.0.0.1")
	status, closed := rawRequest(t, c, postHead("wrong", 100000), `{"jsonrpc":"2.0",`)
	if !strings.HasPrefix(status, "401") || !closed {
		t.Fatalf("answer %q, closed %v; want 401 and the connection closed", status, closed)
	}
}

// TestHTTPSlowBody checks that an authenticated body that trickles is cut
// off at the body timeout with 408 (issue #25 item 6).
func TestHTTPSlowBody(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{BodyTimeout: 300 * time.Millisecond}, nil)
	c := dial(t, srv, "127.0.0.1")
	status, closed := rawRequest(t, c, postHead(testToken, 1000), `{"jsonrpc":"2.0",`)
	if !strings.HasPrefix(status, "408") || !closed {
		t.Fatalf("answer %q, closed %v; want 408 and the connection closed", status, closed)
	}
}

// answer writes head on c and reads the answer, leaving c open.
func answer(t *testing.T, c net.Conn, head string) (status, body string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(failAfter))
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	c.SetDeadline(time.Time{})
	return resp.Status, string(b)
}

// waitClosedConn waits until the server closes c.
func waitClosedConn(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(failAfter))
	if _, err := io.Copy(io.Discard, c); err != nil {
		t.Fatalf("the server did not close the connection: %v", err)
	}
}

const authedGET = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + testToken + "\r\n\r\n"

// TestHTTPConnectionLimits checks LimitListener's budgets (issue #41 item
// 1, issue #40 item 10): connections with the token up to MaxConns, then
// 503 naming --max-conns; token-less ones up to MaxUnauthConns, the
// oldest closed for a new one, and none kept past UnauthTimeout.
func TestHTTPConnectionLimits(t *testing.T) {
	t.Parallel()
	t.Run("max conns", func(t *testing.T) {
		t.Parallel()
		srv := limitedServer(t, HTTPOptions{}, &ConnLimits{MaxConns: 2})
		a := dial(t, srv, "127.0.0.1")
		answer(t, a, authedGET)
		answer(t, dial(t, srv, "127.0.0.2"), authedGET)
		c := dial(t, srv, "127.0.0.3")
		status, body := answer(t, c, authedGET)
		if !strings.HasPrefix(status, "503") || !strings.Contains(body, "LIMIT_REACHED") || !strings.Contains(body, "--max-conns") {
			t.Fatalf("a third connection with the token: %s %q; want 503 LIMIT_REACHED naming --max-conns", status, body)
		}
		waitClosedConn(t, c)
		a.Close()
		for give := time.Now().Add(failAfter); ; {
			if status, _ := answer(t, dial(t, srv, "127.0.0.1"), authedGET); !strings.HasPrefix(status, "503") {
				break // the closed one made room
			}
			if time.Now().After(give) {
				t.Fatal("no room after closing a connection")
			}
		}
	})
	t.Run("oldest unauthenticated closed", func(t *testing.T) {
		t.Parallel()
		srv := limitedServer(t, HTTPOptions{}, &ConnLimits{MaxUnauthConns: 2, UnauthTimeout: time.Hour})
		first := dial(t, srv, "127.0.0.1")
		dial(t, srv, "127.0.0.1")
		third := dial(t, srv, "127.0.0.1")
		waitClosedConn(t, first)
		if status, _ := answer(t, third, authedGET); strings.HasPrefix(status, "503") {
			t.Fatalf("the newest connection: %s", status)
		}
	})
	t.Run("unauthenticated timeout", func(t *testing.T) {
		t.Parallel()
		srv := limitedServer(t, HTTPOptions{}, &ConnLimits{UnauthTimeout: 50 * time.Millisecond})
		waitClosedConn(t, dial(t, srv, "127.0.0.1"))
	})
	t.Run("max conns per session", func(t *testing.T) {
		t.Parallel()
		srv := limitedServer(t, HTTPOptions{MaxConnsPerSession: 1}, &ConnLimits{})
		ctx, cancel := context.WithTimeout(t.Context(), failAfter)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{testToken}}, MaxRetries: -1, DisableStandaloneSSE: true,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		// The session's event stream, held open by the server.
		stream := dial(t, srv, "127.0.0.1")
		stream.SetDeadline(time.Now().Add(failAfter))
		io.WriteString(stream, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+testToken+
			"\r\nAccept: text/event-stream\r\nMcp-Session-Id: "+cs.ID()+"\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n")
		if resp, err := http.ReadResponse(bufio.NewReader(stream), nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("event stream: %v %v", resp, err)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
		if err == nil || !strings.Contains(err.Error(), "--max-conns-per-session") {
			t.Fatalf("a second request of the session: %v; want a refusal naming --max-conns-per-session", err)
		}
	})
}

// TestHTTPMaxSessions checks that sessions over MaxSessions are refused
// with LIMIT_REACHED naming the flag, and that closing one makes room
// (issue #25 item 16).
func TestHTTPMaxSessions(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{MaxSessions: 2}, nil)
	connect := func() (*mcp.ClientSession, error) {
		ctx, cancel := context.WithTimeout(t.Context(), failAfter)
		defer cancel()
		return mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{testToken}}, MaxRetries: -1,
		}, nil)
	}
	first, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	second, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if cs, err := connect(); err == nil {
		cs.Close()
		t.Fatal("a third session was accepted with --max-sessions 2")
	} else if !strings.Contains(err.Error(), "LIMIT_REACHED") || !strings.Contains(err.Error(), "--max-sessions") {
		t.Errorf("refusal = %v, want LIMIT_REACHED naming --max-sessions", err)
	}
	first.Close() // DELETE ends the session
	third, err := connect()
	if err != nil {
		t.Fatalf("after closing a session: %v", err)
	}
	third.Close()
}

// TestHTTPRateLimit checks the rate limit of the token outside a session (issue #25 item 16).
func TestHTTPRateLimit(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{RateLimit: 0.001, RateBurst: 3}, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	var last *http.Response
	for range 4 {
		r, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := (&http.Client{Transport: bearer{testToken}}).Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = resp
		last.Header.Set("X-Body", string(b))
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" ||
		!strings.Contains(last.Header.Get("X-Body"), "LIMIT_REACHED") || !strings.Contains(last.Header.Get("X-Body"), "--rate-limit") {
		t.Fatalf("4th request in a burst of 3: %d %q Retry-After %q; want 429 LIMIT_REACHED naming --rate-limit", last.StatusCode, last.Header.Get("X-Body"), last.Header.Get("Retry-After"))
	}
}

// TestHTTPRateLimitPerSession checks that sessions sharing the token each
// have the rate (issue #41 item 1): three sessions' requests add up to
// three times the burst, and none is refused.
func TestHTTPRateLimitPerSession(t *testing.T) {
	t.Parallel()
	srv := limitedServer(t, HTTPOptions{RateLimit: 0.001, RateBurst: 7}, nil)
	// Connecting costs the token 2 requests here, so 6 of its 7.
	for i := range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), failAfter)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{testToken}}, MaxRetries: -1, DisableStandaloneSSE: true,
		}, nil)
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		defer cs.Close()
		for j := range 5 { // with initialize's notification, 6 of the session's 7
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatalf("session %d, request %d: %v", i, j, err)
			}
		}
	}
}
