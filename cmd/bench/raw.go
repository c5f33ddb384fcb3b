package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/browser/rawcdp"
)

// rawWarmup calls precede the measured ones on each transport: enough
// (about a second) that the floors, like list_pages (see overheadWarmup),
// are measured on a browser past its launch.
const rawWarmup = 1000

// rawResult is the CDP floor on one transport.
type rawResult struct {
	start      time.Duration // browser.Start: launch or attach, until the first answer
	evaluate   latency       // Runtime.evaluate("1+1") on an attached about:blank page
	getTargets latency       // Target.getTargets on the browser session, what list_pages runs
}

// benchPipe launches a browser the way cdpkit does (over
// --remote-debugging-pipe) and measures round trips on it.
func benchPipe(ctx context.Context, log *slog.Logger, cfg *config) (*rawResult, error) {
	start := time.Now()
	b, err := browser.Start(ctx, &browser.Options{ExecPath: cfg.chromium, Logger: log})
	if err != nil {
		return nil, err
	}
	defer b.Close()
	res := &rawResult{start: time.Since(start)}
	return res, roundTrips(ctx, b, cfg.n, res)
}

// benchWebSocket starts a browser with --remote-debugging-port, as a user
// would for cdpkit to attach to, attaches to it through its
// DevToolsActivePort file, and measures round trips on it.
func benchWebSocket(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*rawResult, error) {
	dir := filepath.Join(scratch, "ws-profile")
	db, err := startDebugBrowser(ctx, cfg.chromium, dir)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	start := time.Now()
	b, err := browser.Start(ctx, &browser.Options{AutoConnect: dir, Logger: log})
	if err != nil {
		return nil, err
	}
	defer b.Close() // only disconnects; db.Close stops the browser
	res := &rawResult{start: time.Since(start)}
	return res, roundTrips(ctx, b, cfg.n, res)
}

// roundTrips opens an about:blank tab on b and fills in res's latencies.
func roundTrips(ctx context.Context, b *browser.Browser, n int, res *rawResult) error {
	tab, err := b.NewTab(ctx)
	if err != nil {
		return err
	}
	sess, err := rawcdp.Session(ctx, tab)
	if err != nil {
		return err
	}
	byValue := true
	evalParams := runtime.EvaluateParams{Expression: "1+1", ReturnByValue: &byValue}
	if err := checkEvaluate(ctx, sess, evalParams); err != nil {
		return err
	}
	lat, err := measure(ctx, rawWarmup, n,
		func(ctx context.Context, _ int) error {
			_, err := cdpapi.Call(ctx, sess, runtime.Evaluate, evalParams)
			return err
		},
		func(ctx context.Context, _ int) error {
			_, err := cdpapi.Call(ctx, rawcdp.Conn(b).Browser(), target.GetTargets, target.GetTargetsParams{})
			return err
		})
	if err != nil {
		return fmt.Errorf("timing Runtime.evaluate and Target.getTargets: %w", err)
	}
	res.evaluate, res.getTargets = lat[0], lat[1]
	return nil
}

// checkEvaluate makes sure the page really computes 1+1, so that the loop
// times evaluation rather than a quick error.
func checkEvaluate(ctx context.Context, sess cdpapi.Session, p runtime.EvaluateParams) error {
	r, err := cdpapi.Call(ctx, sess, runtime.Evaluate, p)
	if err != nil {
		return fmt.Errorf("checking Runtime.evaluate: %w", err)
	}
	if r.ExceptionDetails != nil || r.Result == nil || string(r.Result.Value) != "2" {
		return fmt.Errorf("Runtime.evaluate(1+1) did not return 2: %+v", r.Result)
	}
	return nil
}
