package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit"
)

// TestServer connects a client to the server and drives cdpkit's
// navigate_page and then word_count on the page it opened.
func TestServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Words</title><p id=p>one two three</p><p>four</p>`)
	}))
	defer srv.Close()
	b, err := cdpkit.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer(b).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("%s failed: %s", name, text)
		}
		return text
	}
	if got := call("navigate_page", map[string]any{"url": srv.URL}); !strings.Contains(got, "Words") {
		t.Errorf("navigate_page = %s, want the Words page", got)
	}
	if got := call("word_count", nil); got != "4 words" {
		t.Errorf("word_count = %q, want 4 words", got)
	}
	if got := call("word_count", map[string]any{"selector": "#p"}); got != "3 words" {
		t.Errorf("word_count(#p) = %q, want 3 words", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "word_count", Arguments: map[string]any{"selector": "#nope"}})
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "[ELEMENT_NOT_FOUND]") {
		t.Errorf("word_count(#nope) = %+v, %v; want an [ELEMENT_NOT_FOUND] tool error", res, err)
	}
}
