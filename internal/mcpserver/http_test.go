package mcpserver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testToken = "0123456789abcdef0123456789abcdef"

// counting serves one tool that counts its calls, so tests can prove a
// refused request ran nothing.
func counting(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	newServer := func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
		s.AddTool(&mcp.Tool{Name: "count", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				calls.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		return s
	}
	h := NewHTTPHandler(newServer, HTTPOptions{Token: testToken, Log: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, &calls
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPHappyPath(t *testing.T) {
	srv, calls := counting(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{testToken}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count"}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Errorf("tool ran %d times, want 1", calls.Load())
	}
}

func TestHTTPAttacks(t *testing.T) {
	srv, calls := counting(t)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{}}}`
	tests := []struct {
		name   string
		mutate func(r *http.Request)
		body   string
		want   int
	}{
		{"wrong Host", func(r *http.Request) { r.Host = "evil.example:80" }, call, http.StatusForbidden},
		{"rebinding Host", func(r *http.Request) { r.Host = "attacker.test" }, call, http.StatusForbidden},
		{"evil Origin", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, call, http.StatusForbidden},
		{"null Origin", func(r *http.Request) { r.Header.Set("Origin", "null") }, call, http.StatusForbidden},
		{"no token", func(r *http.Request) { r.Header.Del("Authorization") }, call, http.StatusUnauthorized},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }, call, http.StatusUnauthorized},
		{"token without Bearer", func(r *http.Request) { r.Header.Set("Authorization", testToken) }, call, http.StatusUnauthorized},
		{"text/plain", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, call, http.StatusUnsupportedMediaType},
		{"form post", func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }, call, http.StatusUnsupportedMediaType},
		{"oversized body", nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxBody) + `"}}`, http.StatusRequestEntityTooLarge},
		{"oversized chunked body", func(r *http.Request) {
			// No Content-Length: the limit must hold while reading.
			r.ContentLength = -1
			r.Body = io.NopCloser(io.MultiReader(r.Body))
			r.GetBody = nil
		}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{},"pad":"` + strings.Repeat("x", MaxBody) + `"}}`, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, bytes.NewBufferString(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("Authorization", "Bearer "+testToken)
			if tt.mutate != nil {
				tt.mutate(r)
			}
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	if calls.Load() != 0 {
		t.Errorf("a refused request ran the tool %d times", calls.Load())
	}
}

func TestHostname(t *testing.T) {
	for in, want := range map[string]string{"localhost:8765": "localhost", "[::1]:80": "::1", "127.0.0.1": "127.0.0.1", "LOCALHOST": "localhost"} {
		if got := hostname(in); got != want {
			t.Errorf("hostname(%q) = %q, want %q", in, got, want)
		}
	}
}
