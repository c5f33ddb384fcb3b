package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/apienv"
	"github.com/cdpkit/cdpkit/internal/telemetry"
	"github.com/cdpkit/cdpkit/internal/tools"
)

// app is what the MCP front-ends share: the logger, the browser (a public
// cdpkit.Browser, started lazily on the first call), and the tools with
// the environment they run in.
type app struct {
	log     *slog.Logger
	browser *cdpkit.Browser
	env     *tools.Env
	tools   []tools.Tool
	// telemetry records calls and sessions (telemetry.go); flushed by close.
	telemetry *telemetry.Telemetry
	opts      *cdpkit.Options   // what browser was made with, for a pool's other browsers
	pool      []*cdpkit.Browser // a pool's other browsers (serve --browsers), closed with the app
}

// newApp builds the app from the config, through the public Go API: the
// flags were parsed into cfg.opts, and cdpkit.New translates them for the
// backend. The caller must call close, which stops the browser.
func newApp(cfg *config, stderr io.Writer) (*app, error) {
	log, err := cfg.logger(stderr)
	if err != nil {
		return nil, err
	}
	list, err := tools.Select(cfg.tools)
	if err != nil {
		return nil, err
	}
	list = tools.ForBackend(list, cfg.opts.Browser)
	o := cfg.opts // kept in the app: a pool makes its other browsers with it
	o.Logger = log
	b, err := cdpkit.New(&o)
	var ce *cdpkit.Error
	if errors.As(err, &ce) {
		// A bad option: say what to do, not where artifacts go.
		return nil, fmt.Errorf("%w; %s", err, ce.Hint)
	}
	if err != nil {
		return nil, fmt.Errorf("%w (set CDPKIT_ARTIFACT_DIR to a writable directory)", err)
	}
	a := &app{log: log, browser: b, env: apienv.Of(b), tools: list, opts: &o}
	if err := a.startTelemetry(cfg); err != nil {
		b.Close()
		return nil, err
	}
	return a, nil
}

// closeLimit bounds the shutdown after serving ended: over the two
// minutes a screen recording may take to encode, so that only a call stuck
// for good (in a system call) is abandoned to the exit.
const closeLimit = 3 * time.Minute

// closeWithin is close, bounded by limit: what is still running then is
// left to the process's exit, which is logged.
func (a *app) closeWithin(limit time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.close()
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		a.log.Error("shutdown did not finish; exiting with work still running", "limit", limit)
	}
}

// close stops the browser (and a pool's others), releases the artifact
// dir and flushes the telemetry (bounded: a dead collector does not hold
// the exit).
func (a *app) close() {
	// Every call has ended: the flush runs beside the browsers' stop, so
	// a dead collector adds nothing to the exit unless its bound is the
	// longer of the two.
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		a.closeTelemetry()
	}()
	for _, b := range append([]*cdpkit.Browser{a.browser}, a.pool...) {
		start := time.Now()
		if err := b.Close(); err != nil {
			a.log.Warn("stopping the browser", "err", err)
		}
		a.log.Debug("browser stopped", "duration_ms", time.Since(start).Milliseconds())
	}
	start := time.Now()
	<-flushed
	a.log.Debug("telemetry flushed", "waited_ms", time.Since(start).Milliseconds())
}
