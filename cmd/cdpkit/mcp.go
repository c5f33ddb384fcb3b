package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/cdpkit/cdpkit/internal/mcpserver"
)

// runMCP serves the tools over stdio until stdin closes or a signal
// arrives, then stops the browser. stdout is the protocol stream, so
// everything else goes to stderr.
func runMCP(ctx context.Context, args []string, stderr io.Writer) int {
	cfg, err := parseConfig("mcp", args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit mcp: %v\n", err)
		return 2
	}
	a, err := newApp(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit mcp: %v\n", err)
		return 2
	}
	// Stop the browser on every way out, a panic included, within a bound:
	// a handler stuck for good must not keep the process alive.
	defer a.closeWithin(closeLimit)
	if err := a.useLeases(cfg, "stdio"); err != nil {
		fmt.Fprintf(stderr, "cdpkit mcp: %v\n", err)
		return 2
	}
	a.env.Client = "stdio" // also without leases: the session id of its records
	a.telemetry.SessionOpened(a.env.Client)
	defer func() { a.telemetry.SessionClosed(a.env.Client, sessionReason(ctx)) }()
	server := mcpserver.New(a.env, buildVersion(), a.tools)
	a.log.Info("cdpkit mcp serving on stdio", "version", buildVersion(), "tools", len(a.tools))
	err = mcpserver.RunStdio(ctx, server)
	if errors.Is(err, mcpserver.ErrHandlersRunning) {
		a.log.Warn("stopping with tool calls still running", "err", err)
		return 0
	}
	if err != nil && ctx.Err() == nil {
		a.log.Error("mcp server stopped", "err", err)
		return 1
	}
	return 0
}
