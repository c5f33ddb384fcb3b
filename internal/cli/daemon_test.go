package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// startDaemon serves a daemon with one no-op tool and no browser.
func startDaemon(t *testing.T, idle time.Duration) (*session, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	server.AddTool(&mcp.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
		})
	d := &Daemon{Session: "unit", Dir: dir, IdleTimeout: idle, Server: server, Version: "0",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { done <- d.Serve(ctx) }()
	s := &session{name: "unit", p: sessionPaths(dir, "unit")}
	browsertest.Eventually(t, 30*time.Second, func() error {
		c, err := s.dial()
		if err != nil {
			return fmt.Errorf("the daemon does not listen: %w", err)
		}
		c.Close()
		return nil
	})
	return s, done
}

func callNoop(t *testing.T, s *session, tool string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cs, _, err := s.connect(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool}); err != nil {
		t.Fatal(err)
	}
}

func TestDaemonFiles(t *testing.T) {
	s, done := startDaemon(t, time.Minute)
	fi, err := os.Stat(s.p.socket)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket: %v, mode %v; want a 0600 socket", err, fi.Mode())
	}
	st, err := readState(s.p.state)
	if err != nil || st.PID != os.Getpid() || st.Session != "unit" {
		t.Fatalf("state = %+v, %v; want this pid and session unit", st, err)
	}
	// Concurrent calls share the daemon; each updates lastCall.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { callNoop(t, s, "noop") })
	}
	wg.Wait()
	// The daemon writes lastCall once a call's connection has closed,
	// after the client has its answer, replacing the file as it goes.
	browsertest.Eventually(t, 30*time.Second, func() error {
		st2, err := readState(s.p.state)
		if err != nil {
			return err
		}
		if !st2.LastCall.After(st.LastCall) {
			return fmt.Errorf("lastCall after calls = %v, want after %v", st2.LastCall, st.LastCall)
		}
		return nil
	})
	list, err := liveSessions(s.p.dir)
	if err != nil || len(list) != 1 || list[0].Session != "unit" {
		t.Errorf("liveSessions = %v, %v; want unit", list, err)
	}
	callNoop(t, s, closeTool)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not stop within 10s of close_session")
	}
	for _, p := range []string{s.p.socket, s.p.state} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left after close", p)
		}
	}
}

func TestDaemonIdle(t *testing.T) {
	s, done := startDaemon(t, 300*time.Millisecond)
	callNoop(t, s, "noop")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not exit within 10s of a 300ms idle timeout")
	}
	if _, err := os.Stat(s.p.socket); err == nil {
		t.Error("socket left after the idle exit")
	}
}

func TestDaemonRefusesSecond(t *testing.T) {
	s, _ := startDaemon(t, time.Minute)
	d := &Daemon{Session: "unit", Dir: s.p.dir, Server: mcp.NewServer(&mcp.Implementation{Name: "x"}, nil),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := d.Serve(t.Context()); err == nil {
		t.Error("a second daemon for a live session started")
	}
	callNoop(t, s, "noop") // the first still answers
}

func TestStaleSession(t *testing.T) {
	dir := t.TempDir()
	s := &session{name: "stale", p: sessionPaths(dir, "stale")}
	ln, err := net.Listen("unix", s.p.socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // a socket file nobody listens on: a killed daemon's
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := writeState(s.p.state, &State{Session: "stale", PID: dead.Process.Pid}); err != nil {
		t.Fatal(err)
	}
	_, st, err := s.ensure(t.Context(), false)
	if !errors.Is(err, errNotRunning) || !st.reset {
		t.Errorf("ensure = %+v, %v; want a reset and errNotRunning", st, err)
	}
	for _, p := range []string{s.p.socket, s.p.state} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
	// Nothing left: not running, and no reset to report.
	if _, st, err := s.ensure(t.Context(), false); !errors.Is(err, errNotRunning) || st.reset {
		t.Errorf("second ensure = %+v, %v; want no reset", st, err)
	}
}
