package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// cliSession is the CLI session the bench uses, in its own state dir.
const cliSession = "bench"

// cliResult is what the CLI stage measured.
type cliResult struct {
	cold      time.Duration // first call: daemon start, browser launch, list_pages
	warm      latency       // list_pages through the running daemon, one process per call
	daemonRSS int64         // the daemon, idle with a browser open
}

// benchCLI runs `cdpkit list_pages` as a shell or agent would: a process
// per call, the first one starting the session's daemon.
func benchCLI(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*cliResult, error) {
	dir := filepath.Join(scratch, "cli")
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "TMPDIR="+dir, "CHROMIUM_PATH="+cfg.chromium, "CDPKIT_STATE_DIR="+state,
		"CDPKIT_ARTIFACT_DIR="+filepath.Join(dir, "artifacts"), "CDPKIT_SESSION="+cliSession)
	cli := func(ctx context.Context, args ...string) error {
		ctx, cancel := context.WithTimeout(ctx, toolTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, cfg.cdpkit, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("cdpkit %v: %w: %s", args, err, bytes.TrimSpace(stderr.Bytes()))
		}
		return nil
	}
	defer func() {
		// Bounded by its own deadline: ctx may be done already.
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		pid := cliDaemonPID(state)
		if err := cli(closeCtx, "close"); err != nil {
			log.Warn("closing the CLI session", "err", err)
		}
		if pid > 0 && running(pid) {
			log.Warn("the CLI daemon outlived close; killing it", "pid", pid)
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		if left := waitGone(dir, 10*time.Second); len(left) > 0 {
			log.Warn("the CLI daemon left browser processes running; killing them", "pids", left)
			killPIDs(left)
		}
	}()

	res := &cliResult{}
	start := time.Now()
	if err := cli(ctx, "list_pages"); err != nil {
		return nil, err
	}
	res.cold = time.Since(start)
	log.Info("CLI cold call done", "ms", res.cold.Milliseconds())
	took, err := measure(ctx, mcpWarmup, cfg.iters, func(ctx context.Context, _ int) error { return cli(ctx, "list_pages") })
	if err != nil {
		return nil, err
	}
	res.warm = took[0]
	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if pid := cliDaemonPID(state); pid > 0 {
		if res.daemonRSS, err = sysproc.RSS(pid); err != nil {
			return nil, fmt.Errorf("reading the daemon's memory: %w", err)
		}
	}
	return res, nil
}

// cliDaemonPID reads the daemon's pid from its state file; 0 if none.
func cliDaemonPID(state string) int {
	b, err := os.ReadFile(filepath.Join(state, cliSession+".json"))
	if err != nil {
		return 0
	}
	var st struct {
		PID int `json:"pid"`
	}
	json.Unmarshal(b, &st)
	return st.PID
}

// running reports whether pid runs; a zombie (exited, not yet reaped by
// init, as the daemon's parent CLI call is gone) does not.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

// addCLIFigures adds the CLI stage's figures to the report.
func (r *report) addCLIFigures(c *cliResult) {
	r.addMillis("cli.cold", "cli: cold first call (daemon start + browser launch + list_pages)", c.cold)
	r.addMillis("cli.list_pages.p50", "cli: warm list_pages through the daemon, process per call, p50", c.warm.p(50))
	r.addMillis("cli.list_pages.p95", "cli: warm list_pages through the daemon, process per call, p95", c.warm.p(95))
	r.addMiB("mem.cli_daemon_rss", "cdpkit daemon RSS, idle with a browser open", c.daemonRSS)
}
