//go:build unix

package tools

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestToolsRefuseFIFOReads: each tool that reads a file the agent names
// (load_storage_state, mock_request's bodyPath, performance_analyze_insight's
// trace) answers UNSAFE_PATH for a FIFO in the artifact dir instead of
// blocking on it forever (issue #40 item 1). No writer ever opens the FIFO.
func TestToolsRefuseFIFOReads(t *testing.T) {
	t.Parallel()
	env := browserEnv(t)
	mustRun(t, env, "navigate_page", `{"url":"about:blank"}`)
	if err := syscall.Mkfifo(filepath.Join(env.Artifacts.Dir(), "pipe.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, args string }{
		{"load_storage_state", `{"path":"pipe.json"}`},
		{"mock_request", `{"url":"*/never","bodyPath":"pipe.json"}`},
		{"performance_analyze_insight", `{"name":"LCPBreakdown","trace":"pipe.json"}`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := runTool(t, env, tc.tool, tc.args)
			wantCode(t, err, UnsafePath, "not a regular file")
		})
	}
}
