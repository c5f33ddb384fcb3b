package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/mcpserver"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// TestToolPanicKeepsServerUp serves the tools as `cdpkit mcp` does, with
// an environment whose missing browser manager makes every handler that
// needs the browser panic (a nil dereference): each such call is an
// INTERNAL error result, and the server goes on answering.
func TestToolPanicKeepsServerUp(t *testing.T) {
	t.Parallel()
	env := &tools.Env{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Timeout: 5 * time.Second}
	server := mcpserver.New(env, "test", tools.All())
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: protocol error: %v (the server went down?)", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	for range 2 {
		got, isErr := call("list_pages", map[string]any{})
		if !isErr || !strings.HasPrefix(got, "[INTERNAL] list_pages failed unexpectedly") {
			t.Errorf("list_pages with a panicking handler = %q (isError %v), want an INTERNAL error result", got, isErr)
		}
		// The next call is served.
		got, isErr = call("evaluate_script", map[string]any{"function": "() => 1"})
		if !isErr || !strings.HasPrefix(got, "[EVAL_DISABLED]") {
			t.Errorf("the call after the panic = %q, want EVAL_DISABLED", got)
		}
	}
	// timeout_ms goes through MCP to any tool, and is checked.
	if got, _ := call("evaluate_script", map[string]any{"function": "() => 1", "timeout_ms": 500}); !strings.HasPrefix(got, "[EVAL_DISABLED]") {
		t.Errorf("evaluate_script with timeout_ms = %q, want EVAL_DISABLED", got)
	}
	if got, _ := call("evaluate_script", map[string]any{"function": "() => 1", "timeout_ms": 0}); !strings.HasPrefix(got, "[INVALID_ARGS] timeout_ms") {
		t.Errorf("evaluate_script with timeout_ms 0 = %q, want INVALID_ARGS", got)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("tools/list after the panics: %v", err)
	}
}

func TestConfigQueueAndTimeout(t *testing.T) {
	tests := []struct {
		env       map[string]string
		wantLimit int
		wantErr   string
	}{
		{env: map[string]string{}, wantLimit: 0},
		{env: map[string]string{"CDPKIT_QUEUE_LIMIT": "3"}, wantLimit: 3},
		{env: map[string]string{"CDPKIT_QUEUE_LIMIT": "0"}, wantErr: "CDPKIT_QUEUE_LIMIT"},
		{env: map[string]string{"CDPKIT_TOOL_TIMEOUT": "2m"}},
		{env: map[string]string{"CDPKIT_TOOL_TIMEOUT": "3m"}, wantErr: "CDPKIT_TOOL_TIMEOUT"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.env), func(t *testing.T) {
			t.Setenv("CDPKIT_QUEUE_LIMIT", "")
			t.Setenv("CDPKIT_TOOL_TIMEOUT", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg, err := parseConfig("mcp", nil, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseConfig = %v, want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.opts.QueueLimit != tt.wantLimit {
				t.Errorf("queueLimit = %d, want %d", cfg.opts.QueueLimit, tt.wantLimit)
			}
		})
	}
}
