package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/tools"
)

var update = flag.Bool("update", false, "rewrite the golden MCP exchanges in testdata/exchanges")

// An exchange is one MCP request and the result a client gets for it, kept
// as a txtar archive in testdata/exchanges: a comment saying what it shows,
// then the files "request" and "result", both indented JSON. Values that
// change from run to run (the test server's address) are replaced by
// placeholders before comparing.

// txtarFile is one file of a txtar archive.
type txtarFile struct {
	name string
	data []byte
}

// parseTxtar splits a txtar archive into its comment and files.
func parseTxtar(data []byte) (comment []byte, files []txtarFile) {
	marker := regexp.MustCompile(`(?m)^-- (\S+) --\n`)
	locs := marker.FindAllSubmatchIndex(data, -1)
	if len(locs) == 0 {
		return data, nil
	}
	comment = data[:locs[0][0]]
	for i, loc := range locs {
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		files = append(files, txtarFile{name: string(data[loc[2]:loc[3]]), data: data[loc[1]:end]})
	}
	return comment, files
}

// formatTxtar is the inverse of parseTxtar.
func formatTxtar(comment string, files []txtarFile) []byte {
	var b bytes.Buffer
	b.WriteString(comment)
	for _, f := range files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.Write(f.data)
		if len(f.data) > 0 && f.data[len(f.data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// indentJSON encodes v as indented JSON, with the replacements applied to
// the text (old, new pairs).
func indentJSON(t *testing.T, v any, replace ...string) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	raw = []byte(strings.NewReplacer(replace...).Replace(string(raw)))
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// checkExchange compares request and result with the golden archive name,
// or rewrites it under -update. The comparison is of the decoded JSON, so
// a difference shows as a cmp.Diff of the values, not of the text.
func checkExchange(t *testing.T, name, comment string, request, result []byte) {
	t.Helper()
	path := filepath.Join("testdata", "exchanges", name+".txtar")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		data := formatTxtar(comment, []txtarFile{{"request", request}, {"result", result}})
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	_, files := parseTxtar(data)
	want := map[string][]byte{}
	for _, f := range files {
		want[f.name] = f.data
	}
	for _, f := range []txtarFile{{"request", request}, {"result", result}} {
		var got, wantV any
		if err := json.Unmarshal(f.data, &got); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if err := json.Unmarshal(want[f.name], &wantV); err != nil {
			t.Fatalf("%s in %s: %v", f.name, path, err)
		}
		if diff := cmp.Diff(wantV, got); diff != "" {
			t.Errorf("%s differs from %s (-want +got):\n%s\nrun go test -run %s -update if the change is intended", f.name, path, diff, t.Name())
		}
	}
}

// connectInMemory serves list over env to an MCP client in this process.
func connectInMemory(t *testing.T, env *tools.Env, list []tools.Tool) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(env, "test", list).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "golden", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestGoldenToolsList keeps what tools/list sends for the core profile:
// names, descriptions, schemas and annotations are the protocol agents
// see, so any change to them should be a deliberate one.
func TestGoldenToolsList(t *testing.T) {
	list, err := tools.Select("core")
	if err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	cs := connectInMemory(t, env, list)
	res, err := cs.ListTools(t.Context(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	checkExchange(t, "tools-list-core", "tools/list with the core profile.\n",
		indentJSON(t, &mcp.ListToolsParams{}), indentJSON(t, res))
}

// TestGoldenCallResults keeps the shape of tools/call results: an action
// with the changes it caused, and a tool error with its code and hint.
func TestGoldenCallResults(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Golden</title>
<h1>Orders</h1>
<button id="add" onclick="const a = document.createElement('a'); a.href = '#order-7'; a.textContent = 'Order 7'; document.body.append(a); document.title = 'Golden (1)'">Add order</button>`)
	})
	base := browsertest.ServerHandler(t, mux).URL
	env := *browserEnv(t)
	// A scope of its own, so the exchange sees only its own tab.
	env.Scope = driver.NewScope(&driver.ScopeOptions{Isolate: true})
	t.Cleanup(func() {
		if b := browser.ManagerOf(env.Browsers.Backend()).Current(); b != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			b.CloseScope(ctx, env.Scope)
		}
	})
	cs := connectInMemory(t, &env, tools.All())
	call := func(t *testing.T, name string, args map[string]any) (*mcp.CallToolParams, *mcp.CallToolResult) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
		defer cancel()
		p := &mcp.CallToolParams{Name: name, Arguments: args}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return p, res
	}
	if _, res := call(t, "navigate_page", map[string]any{"url": base + "/"}); res.IsError {
		t.Fatalf("navigate_page: %s", indentJSON(t, res))
	}
	if _, res := call(t, "take_snapshot", map[string]any{"interactive": true}); res.IsError {
		t.Fatalf("take_snapshot: %s", indentJSON(t, res))
	}

	t.Run("action with changes", func(t *testing.T) {
		p, res := call(t, "click", map[string]any{"selector": "#add"})
		checkExchange(t, "call-click-changes",
			"tools/call of click on a button that adds a link and retitles the page,\nafter navigate_page and an interactive take_snapshot: the result reports\nthe changes. SERVER stands for the test server's address.\n",
			indentJSON(t, p), indentJSON(t, res, base, "http://SERVER"))
	})
	t.Run("error", func(t *testing.T) {
		p, res := call(t, "click", map[string]any{"selector": "#nowhere", "waitMs": 100})
		if !res.IsError {
			t.Fatalf("click on a missing element: %s, want an error result", indentJSON(t, res))
		}
		checkExchange(t, "call-click-error",
			"tools/call of click on a selector that matches nothing: a tool error\nresult (isError) with its code, message and hint.\n",
			indentJSON(t, p), indentJSON(t, res, base, "http://SERVER"))
	})
}
