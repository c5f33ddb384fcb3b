package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/idle"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// DefaultIdleTimeout is how long a daemon waits without calls before it
// exits.
const DefaultIdleTimeout = 10 * time.Minute

// closeTool is the daemon-only MCP tool `cdpkit close` calls.
const closeTool = "close_session"

// shutdownGrace bounds how long a stopping daemon waits for calls in
// flight to finish (a close_session reply, typically) before cutting them.
const shutdownGrace = 3 * time.Second

// Daemon serves one CLI session: the MCP server on a unix socket in the
// state dir. Every connection is one MCP session; all of them share the
// server's tools and so one browser, its tabs, refs and dialogs.
type Daemon struct {
	Session     string
	Dir         string        // the state dir; see StateDir
	IdleTimeout time.Duration // exit after this long without calls; zero means DefaultIdleTimeout
	Server      *mcp.Server   // the registry; Serve adds close_session to it
	Flags       []string      // the flags it runs with, for `cdpkit sessions`
	Version     string
	Log         *slog.Logger
}

// LogPath returns the session's log file in dir.
func LogPath(dir, session string) string { return sessionPaths(dir, session).log }

// Serve listens on the session's socket and serves until ctx ends, the
// idle timeout passes with no calls, or a client calls close_session. On
// return the socket and the state file are gone; the caller stops the
// browser.
func (d *Daemon) Serve(ctx context.Context) error {
	if err := CheckSession(d.Session); err != nil {
		return err
	}
	idleAfter := d.IdleTimeout
	if idleAfter <= 0 {
		idleAfter = DefaultIdleTimeout
	}
	p := sessionPaths(d.Dir, d.Session)
	if len(p.socket) > maxSocketPath {
		return fmt.Errorf("socket path %s is longer than %d bytes; use a shorter CDPKIT_STATE_DIR or session name", p.socket, maxSocketPath)
	}
	if c, err := net.DialTimeout("unix", p.socket, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("session %q already has a daemon on %s", d.Session, p.socket)
	}
	os.Remove(p.socket) // a dead daemon's
	// The state file first, so that a socket always has one.
	st := &State{Session: d.Session, PID: os.Getpid(), Started: time.Now().UTC(), Flags: d.Flags, Version: d.Version}
	st.LastCall = st.Started
	if err := writeState(p.state, st); err != nil {
		return err
	}
	defer os.Remove(p.state)
	old := sysproc.Umask(0o077)
	ln, err := net.Listen("unix", p.socket)
	sysproc.Umask(old)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close() // removes the socket file
	if err := os.Chmod(p.socket, 0o600); err != nil {
		return fmt.Errorf("listen: %w", err)
	}

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	d.Server.AddTool(&mcp.Tool{
		Name:        closeTool,
		Description: "Stop this CLI session's daemon and its browser.",
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		d.Log.Info("close requested")
		stop()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"closed":true}`}}}, nil
	})

	d.Log.Info("cdpkit daemon serving", "session", d.Session, "socket", p.socket, "idle_timeout", idleAfter.String())

	// A connection is a call in flight for the idle clock.
	clock := idle.New(idleAfter, func(stillIdle func() bool) {
		if stillIdle() {
			d.Log.Info("idle timeout: exiting", "idle", idleAfter.String())
			stop()
		}
	})
	defer clock.Stop()
	clock.Start()
	var (
		mu      sync.Mutex // guards conns, closing, st and the state file
		conns   = map[net.Conn]bool{}
		closing bool
		active  sync.WaitGroup // one per conn; added to only under mu, before closing
	)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				if ctx.Err() == nil {
					d.Log.Error("accept", "err", err)
					stop()
				}
				return
			}
			mu.Lock()
			if closing {
				mu.Unlock()
				conn.Close()
				return
			}
			conns[conn] = true
			end := clock.Begin()
			active.Go(func() {
				defer end()
				d.serveConn(ctx, conn)
				mu.Lock()
				defer mu.Unlock()
				delete(conns, conn)
				st.LastCall = time.Now().UTC()
				// Under mu: writers share the temporary file's name.
				if ctx.Err() == nil {
					if err := writeState(p.state, st); err != nil {
						d.Log.Warn("updating the state file", "err", err)
					}
				}
			})
			mu.Unlock()
		}
	}()

	<-ctx.Done()

	// New clients must find no socket (and start a new daemon) while this
	// one finishes the calls in flight.
	mu.Lock()
	closing = true
	mu.Unlock()
	ln.Close()
	done := make(chan struct{})
	go func() { active.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownGrace):
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		<-done
	}
	d.Log.Info("cdpkit daemon stopped", "session", d.Session)
	return nil
}

// serveConn runs one MCP session over conn until the client hangs up or
// Serve closes conn.
func (d *Daemon) serveConn(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	// Not ctx: a stopping daemon still sends the replies in flight
	// (close_session's); Serve cuts the conn after shutdownGrace.
	ss, err := d.Server.Connect(context.WithoutCancel(ctx), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		d.Log.Warn("mcp connect", "err", err)
		return
	}
	if err := ss.Wait(); err != nil && !errors.Is(err, net.ErrClosed) {
		d.Log.Debug("mcp session ended", "err", err)
	}
}
