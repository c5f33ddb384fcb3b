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

func limitedServer(t *testing.T, o HTTPOptions, perAddr, total int) *httptest.Server {
	t.Helper()
	newServer := func(*http.Request) *mcp.Server {
		return mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	}
	o.Token = testToken
	o.Log = slog.New(slog.DiscardHandler)
	srv := httptest.NewUnstartedServer(NewHTTPHandler(newServer, o))
	if perAddr > 0 {
		srv.Listener = LimitListener(srv.Listener, perAddr, total)
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
	srv := limitedServer(t, HTTPOptions{}, 0, 0)
	c := dial(t, srv, "127.0.0.1")
	status, closed := rawRequest(t, c, postHead("wrong", 100000), `{"jsonrpc":"2.0",`)
	if !strings.HasPrefix(status, "401") || !closed {
		t.Fatalf("answer %q, closed %v; want 401 and the connection closed", status, closed)
	}
}

// TestHTTPSlowBody checks that an authenticated body that trickles is cut
// off at the body timeout with 408 (issue #25 item 6).
func TestHTTPSlowBody(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{BodyTimeout: 300 * time.Millisecond}, 0, 0)
	c := dial(t, srv, "127.0.0.1")
	status, closed := rawRequest(t, c, postHead(testToken, 1000), `{"jsonrpc":"2.0",`)
	if !strings.HasPrefix(status, "408") || !closed {
		t.Fatalf("answer %q, closed %v; want 408 and the connection closed", status, closed)
	}
}

// TestHTTPConnectionCaps checks the per-address and total connection caps
// (issue #25 item 6): a connection over a cap gets 503 and is closed; one
// freed makes room.
func TestHTTPConnectionCaps(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{}, 2, 3)
	// Two idle connections: the server accepts in order, so they count
	// before the third is judged.
	dial(t, srv, "127.0.0.1")
	dial(t, srv, "127.0.0.1")
	if status, closed := rawRequest(t, dial(t, srv, "127.0.0.1"), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", ""); !strings.HasPrefix(status, "503") || !closed {
		t.Fatalf("third connection from one address: %q, closed %v; want 503 and closed", status, closed)
	}
	if status, _ := rawRequest(t, dial(t, srv, "127.0.0.2"), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", ""); !strings.HasPrefix(status, "401") {
		t.Fatalf("a connection from another address: %q, want 401", status)
	}
	dial(t, srv, "127.0.0.2") // the third in all (the one above was closed after its 401)
	if status, closed := rawRequest(t, dial(t, srv, "127.0.0.3"), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", ""); !strings.HasPrefix(status, "503") || !closed {
		t.Fatalf("a fourth connection in all: %q, closed %v; want 503 and closed", status, closed)
	}
}

// TestHTTPMaxSessions checks that sessions over MaxSessions are refused
// with LIMIT_REACHED naming the flag, and that closing one makes room
// (issue #25 item 16).
func TestHTTPMaxSessions(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{MaxSessions: 2}, 0, 0)
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

// TestHTTPRateLimit checks the per-token rate limit (issue #25 item 16).
func TestHTTPRateLimit(t *testing.T) {
	srv := limitedServer(t, HTTPOptions{RateLimit: 0.001, RateBurst: 3}, 0, 0)
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
