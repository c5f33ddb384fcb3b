package cdpkit_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

var (
	sharedOnce    sync.Once
	sharedBrowser *cdpkit.Browser
	sharedErr     error
)

// shared returns the package's one browser for its tests (the examples
// launch their own, to show Launch), launched on first use; closeShared
// closes it after the tests. Without Chromium it skips, or fails under
// CDPKIT_REQUIRE_BROWSER=1.
func shared(t *testing.T) *cdpkit.Browser {
	t.Helper()
	exe := browsertest.ExecPath(t)
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		sharedBrowser, sharedErr = cdpkit.Launch(ctx, &cdpkit.Options{ExecPath: exe, Timeout: time.Minute})
	})
	if sharedErr != nil {
		t.Fatalf("Launch: %v", sharedErr)
	}
	return sharedBrowser
}

func closeShared() error {
	if sharedBrowser != nil {
		return sharedBrowser.Close()
	}
	return nil
}

// TestAddTools serves cdpkit's core tools from another go-sdk server and
// drives a page through them: navigate, snapshot, click, with the
// changes section and the error taxonomy of cdpkit's own server.
func TestAddTools(t *testing.T) {
	b := shared(t)
	srv := page()
	defer srv.Close()

	server := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	if err := cdpkit.AddTools(server, b, nil); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cdpkit.Tools(nil)
	if len(list.Tools) != len(want) {
		t.Errorf("tools/list has %d tools, want the %d core ones", len(list.Tools), len(want))
	}

	var last *mcp.CallToolResult
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		last = res
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if text, isErr := call("navigate_page", map[string]any{"url": srv.URL}); isErr || !strings.Contains(text, "title: Demo\n") {
		t.Fatalf("navigate_page = %s, want the Demo page", text)
	}
	text, isErr := call("take_snapshot", map[string]any{"interactive": true})
	if isErr || !strings.Contains(text, `e1 button "Greet"`) {
		t.Fatalf("take_snapshot = %s, want the button", text)
	}
	text, isErr = call("click", map[string]any{"uid": "e1"})
	var res struct {
		Changes struct {
			Elements []string `json:"elements"`
		} `json:"changes"`
	}
	raw, _ := json.Marshal(last.StructuredContent)
	if isErr || json.Unmarshal(raw, &res) != nil || !slices.Contains(res.Changes.Elements, `+ e2 link "Hello!"`) || !strings.Contains(text, `+ e2 link "Hello!"`) {
		t.Fatalf("click = %s (structured %s), want changes adding the link", text, raw)
	}
	if text, isErr := call("click", map[string]any{"uid": "e99"}); !isErr || !strings.HasPrefix(text, "[REF_NOT_FOUND]") {
		t.Errorf("click e99 = %s (isError %v), want [REF_NOT_FOUND]", text, isErr)
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "evaluate_script", Arguments: map[string]any{"function": "() => 1"}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("evaluate_script, not in the core profile: err = %v, want unknown tool", err)
	}
}
