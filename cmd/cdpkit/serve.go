package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/cdpkit/cdpkit/internal/mcpserver"
)

// runServe serves the tools over streamable HTTP until a signal arrives.
// It binds loopback unless --allow-remote, and every request needs the
// bearer token.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig("serve", args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
		return 2
	}
	host, _, err := net.SplitHostPort(cfg.listen)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit serve: --listen %q: want host:port\n", cfg.listen)
		return 2
	}
	loopback := host == "localhost" || net.ParseIP(host).IsLoopback()
	if !loopback && !cfg.allowRemote {
		fmt.Fprintf(stderr, "cdpkit serve: --listen %s is not a loopback address; add --allow-remote (and a --token) if you mean it\n", cfg.listen)
		return 2
	}
	if !loopback && cfg.token == "" {
		fmt.Fprintln(stderr, "cdpkit serve: a non-loopback --listen needs --token or CDPKIT_TOKEN")
		return 2
	}
	if cfg.metricsListen != "" {
		if _, err := checkMetricsListen(cfg); err != nil {
			fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
			return 2
		}
	}
	if cfg.token == "" && cfg.tokenFile != "" {
		if cfg.token, err = loadTokenFile(cfg.tokenFile); err != nil {
			fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
			return 2
		}
	}
	if cfg.printConfig != "" {
		if cfg.token == "" {
			fmt.Fprintln(stderr, "cdpkit serve: --print-config needs a token that survives restarts: add --token-file PATH (or --token)")
			return 2
		}
		out, err := registration(cfg.printConfig, "http://"+cfg.listen+"/mcp", cfg.token)
		if err != nil {
			fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
			return 2
		}
		fmt.Fprint(stdout, out)
		return 0
	}
	a, err := newApp(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
		return 2
	}
	stopped := func() {} // logs the end of a shutdown, once the browsers stopped
	defer func() {
		a.close()
		stopped()
	}()
	if err := a.useLeases(cfg, ""); err != nil {
		fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
		return 2
	}
	if cfg.token == "" {
		b := make([]byte, 16) // 128 bits
		rand.Read(b)
		cfg.token = hex.EncodeToString(b)
		fmt.Fprintf(stderr, "cdpkit serve: token %s (send it as Authorization: Bearer; --token-file keeps one across restarts)\n", cfg.token)
	}
	if cfg.metricsListen != "" {
		if err := a.listenMetrics(ctx, cfg); err != nil {
			fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
			return 2
		}
	}
	var hosts []string
	if !loopback {
		a.log.Warn("serving on a non-loopback address: anyone with the token can drive the browser", "listen", cfg.listen)
		hosts = append(hosts, host)
	}
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
		return 1
	}
	// Each MCP session gets its own tabs (and, isolated, its own browser
	// context); they close when it ends.
	pool, err := a.newPool(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "cdpkit serve: %v\n", err)
		return 2
	}
	perSession := mcpserver.PerSession(pool, buildVersion(), a.tools,
		&mcpserver.SessionOptions{Isolate: cfg.isolate, MaxTabs: cfg.maxTabs, InstanceID: cfg.instanceID})
	noLimit := func(n int) int {
		if n == 0 {
			return -1 // the flags' 0: no limit
		}
		return n
	}
	rate := cfg.rateLimit
	if rate == 0 {
		rate = -1
	}
	handler := mcpserver.NewHTTPHandler(perSession,
		mcpserver.HTTPOptions{Token: cfg.token, Hosts: hosts, SessionTimeout: cfg.sessionIdle, Log: a.log,
			MaxSessions: noLimit(cfg.maxSessions), RateLimit: rate, MaxConnsPerSession: noLimit(cfg.maxConnsPerSession)})
	// Slow, idle or token-less clients cannot hold every file descriptor
	// nor keep out a client with the token.
	ln = mcpserver.LimitListener(ln, cfg.conns)
	srv := &http.Server{Handler: handler, ConnContext: mcpserver.ConnContext,
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	a.log.Info("cdpkit serve listening", "url", "http://"+ln.Addr().String()+"/mcp", "version", buildVersion(),
		"instance", cfg.instanceID, "browsers", cfg.browsers)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		start := time.Now()
		a.log.Info("cdpkit serve shutting down", "reason", sessionReason(ctx))
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
		stopped = func() { a.log.Info("cdpkit serve stopped", "duration_ms", time.Since(start).Milliseconds()) }
		return 0
	case err := <-done:
		a.log.Error("http server stopped", "err", err)
		return 1
	}
}
