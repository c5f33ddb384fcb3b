package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/cdpkit/cdpkit/internal/mcpserver"
	"github.com/cdpkit/cdpkit/internal/telemetry"
	"github.com/cdpkit/cdpkit/internal/telemetry/export"
)

// startTelemetry sets up the app's telemetry: OTLP export when the
// OTEL_EXPORTER_OTLP_* variables say so, metrics kept for /metrics with
// --metrics-listen, and the per-call records on the app's logger always.
func (a *app) startTelemetry(cfg *config) error {
	t, err := export.New(context.Background(), &telemetry.Options{
		Log: a.log,
		Gauges: func() telemetry.Gauges {
			var g telemetry.Gauges
			if b := a.env.Browsers.Peek(); b != nil {
				g.Browsers = 1
				if pages, err := b.PagesNow(nil); err == nil {
					g.Tabs = len(pages)
				}
			}
			return g
		},
	}, &export.Options{KeepMetrics: cfg.metricsListen != "", Version: buildVersion()})
	if err != nil {
		return err
	}
	a.telemetry = t
	a.env.Telemetry = t
	return nil
}

// closeTelemetry flushes spans and metrics, bounded by
// telemetry.FlushTimeout so that a dead collector cannot hold the exit.
func (a *app) closeTelemetry() {
	if err := a.telemetry.Shutdown(context.Background()); err != nil {
		a.log.Warn("flushing telemetry", "err", err)
	}
}

// sessionReason is why the process's one session (stdio, a CLI daemon's)
// ended: a signal, or its client closing it.
func sessionReason(ctx context.Context) string {
	if ctx.Err() != nil {
		return telemetry.ReasonSignal
	}
	return telemetry.ReasonExplicit
}

// checkMetricsListen checks --metrics-listen as --listen is checked:
// loopback unless --allow-remote, and off loopback only with a token, which
// scrapes must then send. It reports whether the address is loopback.
func checkMetricsListen(cfg *config) (loopback bool, err error) {
	host, _, err := net.SplitHostPort(cfg.metricsListen)
	if err != nil {
		return false, fmt.Errorf("--metrics-listen %q: want host:port", cfg.metricsListen)
	}
	loopback = host == "localhost" || net.ParseIP(host).IsLoopback()
	if !loopback && !cfg.allowRemote {
		return false, fmt.Errorf("--metrics-listen %s is not a loopback address; add --allow-remote (and a --token) if you mean it", cfg.metricsListen)
	}
	if !loopback && cfg.token == "" && cfg.tokenFile == "" {
		return false, errors.New("a non-loopback --metrics-listen needs --token, --token-file or CDPKIT_TOKEN")
	}
	return loopback, nil
}

// listenMetrics serves /metrics on --metrics-listen (checked by
// checkMetricsListen) until ctx ends. It returns once listening.
func (a *app) listenMetrics(ctx context.Context, cfg *config) error {
	loopback, err := checkMetricsListen(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.metricsListen)
	if err != nil {
		return err
	}
	h := a.telemetry.MetricsHandler()
	var hosts []string
	if !loopback {
		h = requireBearer(cfg.token, h)
		host, _, _ := net.SplitHostPort(cfg.metricsListen)
		hosts = append(hosts, host)
	}
	mux := http.NewServeMux()
	// The Host and Origin checks of /mcp: a page on a rebound name must not
	// read the metrics (tool names, URLs in labels) either.
	mux.Handle("/metrics", mcpserver.RequireHost(hosts, h))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	a.log.Info("metrics listening", "url", "http://"+ln.Addr().String()+"/metrics")
	return nil
}

// requireBearer lets through only requests with the bearer token.
func requireBearer(token string, h http.Handler) http.Handler {
	want := sha256.Sum256([]byte("Bearer " + token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
