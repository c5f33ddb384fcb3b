package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/mcpserver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
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
	log, err := cfg.logger(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit mcp: %v\n", err)
		return 2
	}
	cfg.browser.Logger = log
	artifacts, err := policy.OpenArtifacts(cfg.artifactDir)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit mcp: %v (set CDPKIT_ARTIFACT_DIR to a writable directory)\n", err)
		return 1
	}
	defer artifacts.Close()
	browsers := browser.NewManager(&cfg.browser)
	// Stop the browser on every way out, a panic included.
	defer func() {
		if err := browsers.Close(); err != nil {
			log.Warn("stopping the browser", "err", err)
		}
	}()
	env := &tools.Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: cfg.toolTimeout,
		MaxScreenshotPixels: cfg.maxPixels, MaxImageBytes: cfg.maxBytes}
	server := mcpserver.New(env, buildVersion(), tools.All())
	log.Info("cdpkit mcp serving on stdio", "version", buildVersion())
	if err := mcpserver.RunStdio(ctx, server); err != nil && ctx.Err() == nil {
		log.Error("mcp server stopped", "err", err)
		return 1
	}
	return 0
}
