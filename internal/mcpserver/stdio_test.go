package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestStdioBadMessagesCarryOn checks that each line the SDK's reader would
// stop on (issue #40 item 4) gets a JSON-RPC error, and the server answers
// the request after it.
func TestStdioBadMessagesCarryOn(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`},
		{"empty batch", `[]`},
		{"null", `null`},
		{"number", `42`},
		{"string", `"hi"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`},
		{"huge id", `{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`},
		{"no jsonrpc", `{"id":6,"method":"tools/list"}`},
		{"old jsonrpc", `{"jsonrpc":"1.0","id":6,"method":"tools/list"}`},
		{"method not a string", `{"jsonrpc":"2.0","id":6,"method":7}`},
		{"error not an object", `{"jsonrpc":"2.0","id":6,"error":"x"}`},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`},
		{"trailing data", `{"jsonrpc":"2.0","id":6,"method":"tools/list"} {}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Join([]string{initLine, initedLine, tc.line, listLine}, "\n") + "\n"
			var out lockedBuffer
			release := make(chan struct{})
			close(release)
			if err := serveStdio(t.Context(), slowServer(release), strings.NewReader(in), &out); err != nil {
				t.Fatalf("serveStdio stopped on %s: %v", tc.line, err)
			}
			got := answers(t, out.String())
			if got["2"] == nil || got["2"]["result"] == nil {
				t.Fatalf("no tools/list answer after %s; stdout:\n%.2000s", tc.line, out.String())
			}
			var errs int
			for _, m := range got {
				if m["error"] != nil {
					errs++
				}
			}
			if errs == 0 {
				t.Errorf("no JSON-RPC error for %s; stdout:\n%.2000s", tc.line, out.String())
			}
		})
	}
}

// FuzzStdioLine feeds the stdio reader an arbitrary line between a
// session's start and a last request: whatever the line, the server must
// neither panic nor stop, and must answer the last request (issue #40
// item 4). Every request it passes on must be answered: a drain cut short
// means one never was (its bound only makes such a hang fail rather than
// stall the fuzzer for drainLimit).
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{`[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, `[]`, `null`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"id":6,"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":8,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, `{`, "\x00", `"\ud800"`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`, `{"jsonrpc":"2.0","id":"5","method":"ping"}`} {
		f.Add(s)
	}
	const last = `{"jsonrpc":"2.0","id":"last-q","method":"tools/list"}`
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "last-q") {
			t.Skip("the line could answer or cancel the last request itself")
		}
		in := strings.Join([]string{initLine, initedLine, line, last}, "\n") + "\n"
		var out lockedBuffer
		release := make(chan struct{})
		close(release)
		fr := newFramer(strings.NewReader(in), &out, 10*time.Second)
		if err := fr.serve(t.Context(), slowServer(release)); err != nil {
			t.Fatalf("serveStdio stopped on %q: %v", line, err)
		}
		fr.mu.Lock()
		cut, owed := fr.drainCut, fr.pending
		fr.mu.Unlock()
		if cut {
			t.Fatalf("after %q, requests %v were never answered; stdout:\n%.2000s", line, owed, out.String())
		}
		if !strings.Contains(out.String(), `"id":"last-q","result"`) {
			t.Fatalf("no answer to the last request after %q; stdout:\n%.2000s", line, out.String())
		}
	})
}

// stuckServer has one tool, "stuck", which ignores its context and
// returns only once release is closed: a handler blocked in a system call.
func stuckServer(started chan<- struct{}, release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	s.AddTool(&mcp.Tool{Name: "stuck", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-release
			return &mcp.CallToolResult{}, nil
		})
	return s
}

// TestStdioStopsWithAStuckHandler: a signal (the context ending) or stdin
// closing ends serving even while a handler never returns (issue #40 item
// 1: neither SIGTERM nor closing stdin stopped a server whose handler
// blocked on a FIFO).
func TestStdioStopsWithAStuckHandler(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stuck","arguments":{}}}`
	for _, how := range []string{"signal", "stdin closed"} {
		t.Run(how, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			started := make(chan struct{})
			pr, pw := io.Pipe()
			defer pw.Close() // as stdin's reader, the SDK's is left blocked until then
			go func() {
				io.WriteString(pw, strings.Join([]string{initLine, initedLine, call}, "\n")+"\n")
				<-started
				if how == "stdin closed" {
					pw.Close()
				}
			}()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				<-started
				if how == "signal" {
					cancel()
				}
			}()
			var out lockedBuffer
			// Short bounds, so that the test ends soon; what it checks is
			// that serving ends at all.
			f := newFramer(pr, &out, 100*time.Millisecond)
			f.stopGrace = 100 * time.Millisecond
			err := f.serve(ctx, stuckServer(started, release))
			if how == "signal" && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrHandlersRunning) {
				t.Errorf("serve after the signal = %v", err)
			}
		})
	}
}
