package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// telemetryResult is what the telemetry stage measured: warm take_snapshot
// with OTLP export off, on to a live receiver, and on to a dead endpoint
// (one that accepts connections and never answers, the worst case for an
// exporter), and how long each cdpkit took to exit once its stdin closed.
type telemetryResult struct {
	snapshot [3]latency       // off, live, dead
	exit     [3]time.Duration // stdin closed → process gone (browser stopped, telemetry flushed)
	exported int64            // OTLP requests the live receiver got
}

var telemetryModes = [3]string{"off", "live", "dead"}

// benchTelemetry runs three `cdpkit mcp`, one per export mode, and times
// warm take_snapshot on each, taking turns, then closes each.
func benchTelemetry(ctx context.Context, log *slog.Logger, cfg *config, scratch string) (*telemetryResult, error) {
	srv, err := serveFixtures()
	if err != nil {
		return nil, fmt.Errorf("serving the fixture pages: %w", err)
	}
	defer srv.Close()
	res := &telemetryResult{}
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		atomic.AddInt64(&res.exported, 1)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer live.Close()
	dead, err := net.Listen("tcp", "127.0.0.1:0") // accepts (the kernel's backlog), never answers
	if err != nil {
		return nil, err
	}
	defer dead.Close()
	endpoints := [3]string{"", live.URL, "http://" + dead.Addr().String()}

	var children [3]*child
	defer func() {
		for _, c := range children {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i, mode := range telemetryModes {
		tmp := filepath.Join(scratch, "telemetry-"+mode)
		if err := os.MkdirAll(tmp, 0o700); err != nil {
			return nil, err
		}
		// startChild passes the bench's environment on; the stage runs
		// alone, so setting it around the start is safe.
		os.Unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		if endpoints[i] != "" {
			os.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoints[i])
		}
		children[i], err = startChild(ctx, log, cfg, tmp, "core")
		os.Unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", mode, err)
		}
		if _, err := children[i].call(ctx, "navigate_page", map[string]any{"url": srv.URL + "/pages/" + snapshotPage + ".html"}); err != nil {
			return nil, children[i].withStderr(err)
		}
	}
	var ops []op
	for _, c := range children {
		ops = append(ops, func(ctx context.Context, _ int) error {
			_, err := c.call(ctx, "take_snapshot", nil)
			return err
		})
	}
	lat, err := measure(ctx, mcpWarmup, cfg.iters, ops...)
	if err != nil {
		return nil, fmt.Errorf("take_snapshot: %w", err)
	}
	copy(res.snapshot[:], lat)
	for i, c := range children {
		start := time.Now()
		if err := c.session.Close(); err != nil {
			log.Warn("closing cdpkit mcp", "export", telemetryModes[i], "err", err)
		}
		res.exit[i] = time.Since(start)
		c.reapStragglers()
		children[i] = nil
	}
	log.Info("telemetry done", "snapshot_p50_off_ms", res.snapshot[0].p(50).Milliseconds(),
		"live_ms", res.snapshot[1].p(50).Milliseconds(), "dead_ms", res.snapshot[2].p(50).Milliseconds(),
		"exit_dead_ms", res.exit[2].Milliseconds(), "live_requests", atomic.LoadInt64(&res.exported))
	return res, nil
}

// addTelemetryFigures adds the telemetry stage's figures to the report.
func (r *report) addTelemetryFigures(t *telemetryResult) {
	names := [3]string{"export off", "OTLP export to a live receiver", "OTLP export to a dead endpoint"}
	for i, mode := range telemetryModes {
		r.addMillis("telemetry.snapshot."+mode+".p50", "telemetry: warm take_snapshot, "+names[i]+", p50", t.snapshot[i].p(50))
	}
	for i, mode := range telemetryModes {
		r.addMillis("telemetry.exit."+mode, "telemetry: exit after stdin closes, "+names[i], t.exit[i])
	}
}

// runTelemetryOnly is `bench -telemetry-only`: the telemetry stage alone,
// its figures on stdout, no result files.
func runTelemetryOnly(ctx context.Context, log *slog.Logger, cfg *config, stdout, stderr io.Writer) int {
	scratch, err := newScratch()
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	defer removeScratch(log, scratch)
	if err := os.Setenv("TMPDIR", scratch); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	t, err := benchTelemetry(ctx, log, cfg, scratch)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	rep := &report{Iters: cfg.iters}
	rep.addTelemetryFigures(t)
	for _, f := range rep.Figures {
		fmt.Fprintf(stdout, "%-70s %10v %s\n", f.Name, f.Value, f.Unit)
	}
	return 0
}
