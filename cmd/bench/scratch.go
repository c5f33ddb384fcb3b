package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// scratchPrefix names the bench's scratch directories in the temp dir, so
// that a later run can find the ones a killed run left behind.
const scratchPrefix = "cdpkit-bench-"

// newScratch creates a scratch directory owned by this process.
func newScratch() (string, error) { return sysproc.MkdirOwned(scratchPrefix) }

// removeScratch makes sure nothing launched under dir still runs, then
// removes it. Stages stop their own browsers; this is the last line of
// defence, so anything it finds is logged.
func removeScratch(log *slog.Logger, dir string) {
	if left := waitGone(dir, 5*time.Second); len(left) > 0 {
		log.Warn("killing processes left running under the scratch directory", "pids", left)
		killPIDs(left)
		waitGone(dir, 5*time.Second)
	}
	if err := sysproc.RemoveAll(dir); err != nil {
		log.Warn("removing the scratch directory", "dir", dir, "err", err)
	}
}

// sweepScratch removes scratch directories whose bench is dead, and returns
// how many it removed.
func sweepScratch(log *slog.Logger) int { return sysproc.SweepOwned(log, scratchPrefix) }

// standalone prepares a stage run on its own (-trace, -formats): the
// run's deadline, a scratch directory and the fixture server; done undoes
// all three.
func standalone(ctx context.Context, log *slog.Logger, cfg *config) (context.Context, string, *httptest.Server, func(), error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	scratch, err := newScratch()
	if err != nil {
		cancel()
		return nil, "", nil, nil, err
	}
	srv, err := serveFixtures()
	if err != nil {
		removeScratch(log, scratch)
		cancel()
		return nil, "", nil, nil, err
	}
	return ctx, scratch, srv, func() { srv.Close(); removeScratch(log, scratch); cancel() }, nil
}
