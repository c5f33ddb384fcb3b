package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestMCPPipedStdin runs `printf '…initialize…\n…tools/list…\n…tools/call…\n'
// | cdpkit mcp`: stdin closes right after the requests, and every one of
// them must still be answered before cdpkit exits (issue #13 item 7).
func TestMCPPipedStdin(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	tmp := t.TempDir()
	site := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<title>piped</title>"))
	}))
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"navigate_page","arguments":{"url":"` + site.URL + `/"}}}`,
	}, "\n") + "\n"
	stdout, stderr := pipeMCP(t, tmp, exe, in)
	got := map[float64]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		if id, ok := m["id"].(float64); ok {
			got[id] = m
		}
	}
	for _, id := range []float64{1, 2, 3} {
		if got[id] == nil || got[id]["result"] == nil {
			t.Errorf("request %v: answer %v, want a result", id, got[id])
		}
	}
	if r, ok := got[3]["result"].(map[string]any); ok && r["isError"] == true {
		t.Errorf("navigate_page failed: %v", r)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr.String())
	}
	browsertest.WaitNoProcesses(t, tmp, 10*time.Second)
}

// TestMCPBadLinesDoNotStop pipes the six lines that stopped `cdpkit mcp`
// with exit 1 (issue #40 item 4: a batch, [], null, an object id, id
// 1e400, a message without "jsonrpc") between requests: each gets a
// JSON-RPC error, the request after them is answered and cdpkit exits 0.
func TestMCPBadLinesDoNotStop(t *testing.T) {
	t.Parallel()
	exe := browsertest.ExecPath(t)
	tmp := t.TempDir()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"printf","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":10,"method":"tools/list"}]`,
		`[]`,
		`null`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}`,
		`{"id":11,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	stdout, stderr := pipeMCP(t, tmp, exe, in)
	errs := 0
	answered := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		if m["error"] != nil {
			errs++
		}
		if m["id"] == float64(2) && m["result"] != nil {
			answered = true
		}
	}
	if errs != 6 || !answered {
		t.Errorf("%d error answers (want 6), tools/list after them answered: %v\nstdout:\n%s\nstderr:\n%s", errs, answered, stdout.String(), stderr.String())
	}
}

// pipeMCP runs `cdpkit mcp` with in as its whole stdin, TMPDIR tmp and the
// browser exe, and returns what it wrote to stdout and stderr once it
// exited.
func pipeMCP(t *testing.T, tmp, exe, in string) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, "mcp")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CHROMIUM_PATH="+exe, "CDPKIT_ARTIFACT_DIR="+filepath.Join(tmp, "artifacts"))
	cmd.Stdin = strings.NewReader(in)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cdpkit mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	return stdout, stderr
}
