package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	initLine   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"0"}}}`
	initedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listLine   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// slowServer has one tool, "slow", which answers once release is closed,
// so a test can close stdin while the call is in flight.
func slowServer(release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return s
}

// answers returns the responses on out by id.
func answers(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", sc.Text(), err)
		}
		if id, ok := m["id"]; ok {
			b, _ := json.Marshal(id)
			got[string(b)] = m
		}
	}
	return got
}

// eofReader gives its data and closes hit when it reaches EOF.
type eofReader struct {
	r   io.Reader
	hit chan<- struct{}
}

func (g *eofReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err == io.EOF && g.hit != nil {
		close(g.hit)
		g.hit = nil
	}
	return n, err
}

// TestStdioAnswersBeforeExit checks that requests already read when stdin
// closes are all answered, then the server returns (issue #13 item 7).
func TestStdioAnswersBeforeExit(t *testing.T) {
	release := make(chan struct{})
	in := strings.Join([]string{initLine, initedLine, listLine,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`}, "\n") + "\n"
	eof := make(chan struct{})
	go func() { <-eof; close(release) }() // the call finishes only after stdin has closed
	var out lockedBuffer
	if err := serveStdio(t.Context(), slowServer(release), &eofReader{r: strings.NewReader(in), hit: eof}, &out); err != nil {
		t.Fatalf("serveStdio: %v", err)
	}
	got := answers(t, out.String())
	for _, id := range []string{"1", "2", "3"} {
		if got[id] == nil {
			t.Errorf("no answer to request %s; stdout:\n%s", id, out.String())
		}
	}
}

// TestStdioOverlongMessage checks that one message over MaxMessage gets an
// error answer and the server keeps serving (issue #25 item 9).
func TestStdioOverlongMessage(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"x":"` + strings.Repeat("a", 17<<20) + `"}}}`
	in := strings.Join([]string{initLine, initedLine, huge, listLine, `{not json`, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`}, "\n") + "\n"
	var out lockedBuffer
	release := make(chan struct{})
	close(release)
	if err := serveStdio(t.Context(), slowServer(release), strings.NewReader(in), &out); err != nil {
		t.Fatalf("serveStdio: %v", err)
	}
	got := answers(t, out.String())
	if e, _ := got["7"]["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "bytes") {
		t.Errorf("answer to the over-long request = %v, want an error naming the limit", got["7"])
	}
	if got["2"] == nil || got["2"]["result"] == nil {
		t.Errorf("no tools/list answer after the over-long message; stdout:\n%.2000s", out.String())
	}
	if got["8"] == nil {
		t.Errorf("no answer after the line that is not JSON")
	}
	if e, _ := got["null"]["error"].(map[string]any); e == nil {
		t.Errorf("no parse error answer for the line that is not JSON: %v", got["null"])
	}
}

// lockedBuffer is a bytes.Buffer safe for the server's concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
