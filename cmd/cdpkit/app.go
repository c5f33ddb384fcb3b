package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// app is what the MCP front-ends share: the logger, the lazily started
// browser, the artifact dir, and the tools with the environment they run in.
type app struct {
	log       *slog.Logger
	browsers  *browser.Manager
	artifacts *policy.Artifacts
	env       *tools.Env
	tools     []tools.Tool
}

// newApp builds the app from the config. The caller must call close,
// which stops the browser.
func newApp(cfg *config, stderr io.Writer) (*app, error) {
	log, err := cfg.logger(stderr)
	if err != nil {
		return nil, err
	}
	list, err := tools.Select(cfg.tools)
	if err != nil {
		return nil, err
	}
	artifacts, err := policy.OpenArtifacts(cfg.artifactDir)
	if err != nil {
		return nil, fmt.Errorf("%w (set CDPKIT_ARTIFACT_DIR to a writable directory)", err)
	}
	cfg.browser.Logger = log
	cfg.browser.DownloadDir = filepath.Join(artifacts.Dir(), "downloads")
	browsers := browser.NewManager(&cfg.browser)
	env := &tools.Env{Browsers: browsers, Artifacts: artifacts, Log: log, Timeout: cfg.toolTimeout,
		MaxScreenshotPixels: cfg.maxPixels, MaxImageBytes: cfg.maxBytes, UploadRoots: cfg.uploadRoots,
		AllowEval: cfg.allowEval, ShowSecrets: cfg.showSecrets, DialogPolicy: cfg.dialogs, QueueLimit: cfg.queueLimit}
	env.URLPolicy = cfg.browser.URLPolicy // the same policy, so its DNS cache is shared
	return &app{log: log, browsers: browsers, artifacts: artifacts, env: env, tools: list}, nil
}

// close stops the browser and releases the artifact dir.
func (a *app) close() {
	if err := a.browsers.Close(); err != nil {
		a.log.Warn("stopping the browser", "err", err)
	}
	a.artifacts.Close()
}
