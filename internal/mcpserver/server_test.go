package mcpserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// TestCoreToolsListBudget measures what tools/list really sends for the
// core profile, through the MCP SDK: at most 9,000 characters of JSON
// (about 2,000 tokens), since a host pays it on every turn.
func TestCoreToolsListBudget(t *testing.T) {
	for _, tt := range []struct {
		profile string
		max     int // 0: no limit, only reported
	}{
		{"core", 9000},
		{"full", 0},
	} {
		list, err := tools.Select(tt.profile)
		if err != nil {
			t.Fatal(err)
		}
		env := &tools.Env{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		server := New(env, "test", list)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(t.Context(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != len(list) {
			t.Errorf("%s: tools/list has %d tools, want %d", tt.profile, len(res.Tools), len(list))
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s tools/list: %d chars, %d tools", tt.profile, len(b), len(res.Tools))
		if tt.max > 0 && len(b) > tt.max {
			t.Errorf("%s tools/list is %d chars, want at most %d", tt.profile, len(b), tt.max)
		}
	}
}
