package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// servedWithDefaults serves one cheap tool ("count") behind the handler
// and the connection limits as cdpkit serve sets them up by default.
func servedWithDefaults(t *testing.T) *httptest.Server {
	t.Helper()
	return limitedServer(t, HTTPOptions{}, &ConnLimits{})
}

// refusals counts the answers and transport errors that refuse a request.
type refusals struct {
	n    atomic.Int64
	mu   sync.Mutex
	last string // guarded by mu
}

func (r *refusals) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil && req.Context().Err() == nil {
		r.note(fmt.Sprintf("%s: %v", req.Method, err))
	} else if err == nil && resp.StatusCode >= 500 {
		r.note(fmt.Sprintf("%s: %s", req.Method, resp.Status))
	}
	return resp, err
}

func (r *refusals) note(s string) {
	r.n.Add(1)
	r.mu.Lock()
	r.last = s
	r.mu.Unlock()
}

// TestHTTP64SessionsFromOneAddress runs 64 MCP sessions at once from one
// address (as behind a reverse proxy), each with its event stream open,
// through the default limits: none is refused (issue #41 item 1).
func TestHTTP64SessionsFromOneAddress(t *testing.T) {
	t.Parallel()
	srv := servedWithDefaults(t)
	var refused refusals
	const n = 64
	sessions := make([]*mcp.ClientSession, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), failAfter)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: srv.URL, HTTPClient: &http.Client{Transport: &refused}, MaxRetries: -1,
			}, nil)
			if err != nil {
				errs[i] = err
				return
			}
			sessions[i] = cs
		})
	}
	wg.Wait()
	// Every session is open, its event stream included; now each works.
	for i, cs := range sessions {
		if cs == nil {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), failAfter)
			defer cancel()
			if _, err := cs.ListTools(ctx, nil); err != nil {
				errs[i] = err
				return
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"}); err != nil {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	failed, first := 0, error(nil)
	for _, err := range errs {
		if err != nil {
			failed++
			first = cmp.Or(first, err)
		}
	}
	for _, cs := range sessions {
		if cs != nil {
			cs.Close()
		}
	}
	if failed > 0 || refused.n.Load() > 0 {
		t.Fatalf("%d of %d sessions failed (first: %v), %d requests refused (last: %s)", failed, n, first, refused.n.Load(), refused.last)
	}
}

// TestHTTPIdleUnauthenticatedSockets opens more idle connections than
// the unauthenticated budget that never show the token, then a client
// with the token: it gets in (issue #40 item 10).
func TestHTTPIdleUnauthenticatedSockets(t *testing.T) {
	t.Parallel()
	srv := servedWithDefaults(t)
	const idle = DefaultMaxUnauthConns + 16
	for range idle {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	var refused refusals
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: srv.URL, HTTPClient: &http.Client{Transport: &refused}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("with %d idle unauthenticated sockets open: %v", idle, err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"}); err != nil {
		t.Fatal(err)
	}
	if refused.n.Load() > 0 {
		t.Fatalf("%d requests refused (last: %s)", refused.n.Load(), refused.last)
	}
}
