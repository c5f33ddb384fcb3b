package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// peerWarmup calls of each step precede the measured ones: fewer than the
// cdpkit bench's, since each round costs three servers' worth.
const peerWarmup = 3

// peerResult is what one server measured.
type peerResult struct {
	name, version string
	listChars     int
	coldStart     latency // process start → initialize → first snapshot answered
	navigate      latency
	snapshot      latency
	click         latency
	fill          latency
	pressKey      latency
	screenshot    latency // viewport
	screenshotFP  latency // full page
	snapChars     map[string]int
	truncated     map[string]bool // pages whose snapshot the server cut short
	answerChars   map[string]int  // text characters of a step's result, by step
	serverRSS     int64           // the server's processes: its tree minus the browser
	browserRSS    int64
	browserProcs  int
}

// benchPeers drives cdpkit and the peers installed under dir through the
// same scenarios, interleaved, and assembles the comparison.
func benchPeers(ctx context.Context, log *slog.Logger, cfg *config, dir string) (*peerReport, error) {
	load := sysproc.LoadAverage()
	launchers, err := peerLaunchers(cfg, dir)
	if err != nil {
		return nil, err
	}
	if n := sweepScratch(log); n > 0 {
		log.Info("removed scratch directories of killed runs", "count", n)
	}
	scratch, err := newScratch()
	if err != nil {
		return nil, fmt.Errorf("creating the scratch directory: %w", err)
	}
	defer removeScratch(log, scratch)
	srv, err := serveFixtures()
	if err != nil {
		return nil, fmt.Errorf("serving the fixture pages: %w", err)
	}
	defer srv.Close()
	base := srv.URL

	results := make([]*peerResult, len(launchers))
	for i, l := range launchers {
		results[i] = &peerResult{name: l.name, version: l.version, snapChars: map[string]int{}, truncated: map[string]bool{}, answerChars: map[string]int{}}
	}
	log.Info("bench-peers starting", "servers", len(launchers), "iters", cfg.iters, "chromium", cfg.chromium)

	// Cold starts, round-robin so that load drift hits all alike.
	for run := range cfg.cold {
		for k := range launchers {
			k := (k + run) % len(launchers)
			d, err := coldStart(ctx, log, launchers[k], filepath.Join(scratch, fmt.Sprintf("cold-%s-%d", launchers[k].name, run)), base)
			if err != nil {
				return nil, err
			}
			results[k].coldStart = append(results[k].coldStart, d)
		}
	}
	for _, r := range results {
		slices.Sort(r.coldStart)
		log.Info("cold start", "server", r.name, "p50_ms", r.coldStart.p(50).Milliseconds())
	}

	servers := make([]*server, len(launchers))
	defer func() {
		for _, s := range servers {
			if s != nil {
				s.Close()
			}
		}
	}()
	for k, l := range launchers {
		if servers[k], err = startServer(ctx, log, l, filepath.Join(scratch, "warm-"+l.name)); err != nil {
			return nil, err
		}
		results[k].listChars = servers[k].listChars
		if l.name == nameCdpkit {
			if info := servers[k].session.InitializeResult(); info != nil && info.ServerInfo != nil {
				results[k].version = info.ServerInfo.Version
			}
		}
		if err := servers[k].Navigate(ctx, base+"/home.html"); err != nil {
			return nil, err
		}
	}
	if err := warmPeers(ctx, log, cfg.iters, base, servers, results); err != nil {
		return nil, err
	}

	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for k, s := range servers {
		server, browser := sysproc.TreeMemory(s.cmd.Process.Pid)
		results[k].serverRSS, results[k].browserRSS, results[k].browserProcs = server.RSS, browser.RSS, browser.Procs
		log.Info("memory", "server", s.name, "server_rss_mib", server.RSS>>20, "browser_rss_mib", browser.RSS>>20)
	}

	return newPeerReport(ctx, cfg, results, load), nil
}

// coldStart starts l's server, navigates to the home page and takes a
// snapshot, timing it all, then stops the server.
func coldStart(ctx context.Context, log *slog.Logger, l launcher, tmp, base string) (time.Duration, error) {
	start := time.Now()
	s, err := startServer(ctx, log, l, tmp)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if err := s.Navigate(ctx, base+"/home.html"); err != nil {
		return 0, err
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	d := time.Since(start)
	if !strings.Contains(snap, "cdpkit bench") {
		return 0, fmt.Errorf("%s's first snapshot lacks the home page's heading:\n%s", l.name, snap)
	}
	return d, nil
}

// each makes one op per server out of f, for measure to interleave.
func each(servers []*server, f func(ctx context.Context, s *server, i int) error) []op {
	ops := make([]op, len(servers))
	for k, s := range servers {
		ops[k] = func(ctx context.Context, i int) error { return f(ctx, s, i) }
	}
	return ops
}

// navigateAll loads the same page in every server.
func navigateAll(ctx context.Context, servers []*server, url string) error {
	for _, s := range servers {
		if err := s.Navigate(ctx, url); err != nil {
			return err
		}
	}
	return nil
}

// warmPeers times each scenario step on every server, interleaved.
func warmPeers(ctx context.Context, log *slog.Logger, iters int, base string, servers []*server, results []*peerResult) error {
	set := func(lat []latency, dst func(r *peerResult) *latency) {
		for k := range results {
			*dst(results[k]) = lat[k]
		}
	}
	lat, err := measure(ctx, peerWarmup, iters, each(servers, func(ctx context.Context, s *server, i int) error {
		return s.Navigate(ctx, base+"/"+[]string{"a.html", "b.html"}[i%2])
	})...)
	if err != nil {
		return fmt.Errorf("navigate: %w", err)
	}
	set(lat, func(r *peerResult) *latency { return &r.navigate })
	for k, s := range servers {
		results[k].answerChars["navigate"] = s.lastChars
	}
	logStep(log, "navigate", results, func(r *peerResult) latency { return r.navigate })

	for _, page := range peerPages {
		for k, s := range servers {
			if err := s.Navigate(ctx, base+"/pages/"+page+".html"); err != nil {
				return err
			}
			snap, err := s.Snapshot(ctx)
			if err != nil {
				return err
			}
			results[k].snapChars[page] = utf8.RuneCountInString(snap)
			// cdpkit's header line says when it stopped at maxChars.
			results[k].truncated[page] = strings.Contains(snap, `"truncated":true`)
		}
	}

	if err := navigateAll(ctx, servers, base+"/pages/"+snapshotPage+".html"); err != nil {
		return err
	}
	lat, err = measure(ctx, peerWarmup, iters, each(servers, func(ctx context.Context, s *server, _ int) error {
		_, err := s.Snapshot(ctx)
		return err
	})...)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	set(lat, func(r *peerResult) *latency { return &r.snapshot })
	logStep(log, "snapshot", results, func(r *peerResult) latency { return r.snapshot })

	for _, full := range []bool{false, true} {
		lat, err = measure(ctx, peerWarmup, iters, each(servers, func(ctx context.Context, s *server, _ int) error {
			return s.Screenshot(ctx, full)
		})...)
		if err != nil {
			return fmt.Errorf("screenshot (full page %v): %w", full, err)
		}
		if full {
			set(lat, func(r *peerResult) *latency { return &r.screenshotFP })
		} else {
			set(lat, func(r *peerResult) *latency { return &r.screenshot })
		}
	}
	logStep(log, "screenshot", results, func(r *peerResult) latency { return r.screenshot })

	return peerActions(ctx, log, iters, base, servers, results)
}

// peerActions times click, fill and press_key on the app fixture's login
// form, each server acting on the refs its own snapshot gave.
func peerActions(ctx context.Context, log *slog.Logger, iters int, base string, servers []*server, results []*peerResult) error {
	if err := navigateAll(ctx, servers, base+"/pages/app.html"); err != nil {
		return err
	}
	users, buttons := make([]string, len(servers)), make([]string, len(servers))
	for k, s := range servers {
		snap, err := s.Snapshot(ctx)
		if err != nil {
			return err
		}
		users[k], buttons[k] = refFor(snap, "textbox", "Username"), refFor(snap, "button", "Sign in")
		if users[k] == "" || buttons[k] == "" {
			return fmt.Errorf("%s's snapshot of app.html lacks the login form's refs:\n%s", s.name, snap)
		}
	}
	// One of each first, to record what an agent reads back from each.
	for k, s := range servers {
		for _, step := range []struct {
			name string
			do   func() error
		}{
			{"click", func() error { return s.Click(ctx, buttons[k]) }},
			{"fill", func() error { return s.Fill(ctx, users[k], "user") }},
			{"press_key", func() error { return s.PressKey(ctx, "Tab") }},
		} {
			if err := step.do(); err != nil {
				return err
			}
			results[k].answerChars[step.name] = s.lastChars
		}
	}
	index := map[*server]int{}
	for k, s := range servers {
		index[s] = k
	}
	var ops []op
	ops = append(ops, each(servers, func(ctx context.Context, s *server, _ int) error {
		return s.Click(ctx, buttons[index[s]])
	})...)
	ops = append(ops, each(servers, func(ctx context.Context, s *server, i int) error {
		return s.Fill(ctx, users[index[s]], fmt.Sprintf("user%d", i))
	})...)
	ops = append(ops, each(servers, func(ctx context.Context, s *server, _ int) error {
		return s.PressKey(ctx, "Tab")
	})...)
	lat, err := measure(ctx, peerWarmup, iters, ops...)
	if err != nil {
		return fmt.Errorf("click, fill and press_key: %w", err)
	}
	n := len(servers)
	set := func(off int, dst func(r *peerResult) *latency) {
		for k := range results {
			*dst(results[k]) = lat[off+k]
		}
	}
	set(0, func(r *peerResult) *latency { return &r.click })
	set(n, func(r *peerResult) *latency { return &r.fill })
	set(2*n, func(r *peerResult) *latency { return &r.pressKey })
	logStep(log, "click", results, func(r *peerResult) latency { return r.click })
	return nil
}

func logStep(log *slog.Logger, step string, results []*peerResult, get func(r *peerResult) latency) {
	args := []any{}
	for _, r := range results {
		args = append(args, r.name+"_p50_ms", float64(get(r).p(50).Microseconds())/1e3)
	}
	log.Info(step+" done", args...)
}

// runPeers is run for -peers: the comparison instead of the cdpkit bench.
func runPeers(ctx context.Context, log *slog.Logger, cfg *config, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	rep, err := benchPeers(ctx, log, cfg, cfg.peers)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("the run took longer than its %v bound, so the machine is too busy for these figures; rerun when it is quieter, or with fewer -iters and -cold, or a longer -timeout: %w", cfg.timeout, err)
		}
		return err
	}
	rep.writeMarkdown(stdout)
	paths, err := rep.writeJSON(cfg.out)
	if err != nil {
		return err
	}
	log.Info("wrote results", "files", strings.Join(paths, " "), "go", runtime.Version())
	return nil
}
