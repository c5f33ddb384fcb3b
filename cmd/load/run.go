package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/coreloop"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// noRoots keeps the client from offering roots: a server that asks for
// them (Playwright MCP does, before its first browser) would wait for an
// answer over the event stream the sessions do not open.
var noRoots = &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}

// level is what one server measured at one session count.
type level struct {
	took      map[string][]time.Duration // by step
	errors    map[string]int             // by code
	loopsDone int                        // timed loops that completed
	wall      time.Duration              // first timed loop's start → last loop's end
	server    sysproc.Memory             // the server's processes, the browser's excepted
	browser   sysproc.Memory
	// CPU seconds the server's and the browser's processes used over wall
	// (a process that exited in that time is missed).
	serverCPU, browserCPU float64
}

// measure starts a fresh k in tmp, connects n sessions over streamable
// HTTP, and, once all are connected, runs 1 warm-up loop and loops timed
// loops in each at once; it reads the memory of the server's and the
// browser's processes with the sessions still open, then stops the server.
func measure(ctx context.Context, k *kind, tmp, site string, n, loops int, callTimeout time.Duration) (*level, error) {
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}
	srv, err := k.start(ctx, tmp)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", k.name, err)
	}
	defer srv.stop()

	lv := &level{took: map[string][]time.Duration{}, errors: map[string]int{}}
	var mu sync.Mutex // guards lv and sessions while the sessions run
	var sessions []*mcp.ClientSession
	var first time.Time
	var cpuBefore cpuTicks
	var wg sync.WaitGroup
	connected := make(chan struct{}, n)
	ready := make(chan struct{})
	httpClient := &http.Client{Transport: bearer(srv.bearer)}
	for i := range n {
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "0"}, noRoots).Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: srv.endpoint, HTTPClient: httpClient, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
			d := k.dialect
			if err == nil {
				if d, err = d.learn(ctx, cs); err != nil {
					cs.Close()
				}
			}
			mu.Lock()
			if err != nil {
				if lv.errors["CONNECT"]++; lv.errors["CONNECT"] == 1 {
					slog.Warn("a session could not connect", "server", k.name, "err", err, "stderr", srv.stderr.String())
				}
			} else {
				sessions = append(sessions, cs)
				if k.version == "" {
					if info := cs.InitializeResult(); info != nil && info.ServerInfo != nil {
						k.version = info.ServerInfo.Version
					}
				}
			}
			mu.Unlock()
			connected <- struct{}{}
			if err != nil {
				return
			}
			<-ready // all sessions start together
			id := strconv.Itoa(i)
			for round := range loops + 1 {
				if round == 1 {
					mu.Lock()
					if first.IsZero() {
						first = time.Now()
						cpuBefore = cpuOf(srv.cmd.Process.Pid)
					}
					mu.Unlock()
				}
				took, err := d.loop(ctx, cs, site, id, callTimeout)
				mu.Lock()
				// Loop 0 warms up (the session's context and first tab):
				// its errors count, its latencies do not.
				if round > 0 {
					for j, d := range took {
						if err == nil || j < len(took)-1 {
							lv.took[steps[j]] = append(lv.took[steps[j]], d)
						}
					}
					if err == nil {
						lv.loopsDone++
					}
				}
				if err != nil {
					code := coreloop.Code(err)
					if lv.errors[code]++; lv.errors[code] == 1 {
						msg := err.Error()
						slog.Warn("a loop failed", "server", k.name, "sessions", n, "code", code, "err", msg[:min(len(msg), 400)])
					}
				}
				mu.Unlock()
				if ctx.Err() != nil {
					return
				}
			}
		})
	}
	for range n {
		select {
		case <-connected:
		case <-ctx.Done():
		}
	}
	close(ready)
	wg.Wait()
	if !first.IsZero() {
		lv.wall = time.Since(first)
		lv.serverCPU, lv.browserCPU = cpuOf(srv.cmd.Process.Pid).since(cpuBefore)
	}
	lv.server, lv.browser = sysproc.TreeMemory(srv.cmd.Process.Pid)
	if len(lv.errors) > 0 {
		slog.Debug("server stderr", "server", k.name, "sessions", n, "stderr", srv.stderr.String())
	}
	for _, cs := range sessions {
		cs.Close()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s at %d sessions: %w", k.name, n, err)
	}
	return lv, nil
}
