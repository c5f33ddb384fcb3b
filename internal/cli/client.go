package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// startBudget bounds starting a daemon: waiting for the lock, the process
// and its socket. The browser starts later, inside the first tool call.
const startBudget = 10 * time.Second

// errNotRunning says a session has no daemon (and none was started).
var errNotRunning = errors.New("cli: session not running")

// session is the client's view of one session's daemon.
type session struct {
	name       string
	p          paths
	exe        string   // the cdpkit binary to start a daemon with
	daemonArgs []string // flags for a new daemon
}

// dial connects to the daemon's socket.
func (s *session) dial() (net.Conn, error) {
	return net.DialTimeout("unix", s.p.socket, 2*time.Second)
}

// status says how a connection came about.
type status struct {
	started bool // this call started the daemon
	reset   bool // ... because the one before had died (not closed or idle)
}

// connect returns an MCP session with the daemon, starting one if start is
// set and none answers.
func (s *session) connect(ctx context.Context, start bool) (*mcp.ClientSession, status, error) {
	var st status
	// One retry: a daemon that stops right after we dial (idle timeout)
	// drops the connection before initialize completes.
	for attempt := 0; ; attempt++ {
		conn, r, err := s.ensure(ctx, start)
		if err != nil {
			return nil, st, err
		}
		st.started = st.started || r.started
		st.reset = st.reset || r.reset
		client := mcp.NewClient(&mcp.Implementation{Name: "cdpkit-cli", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
		if err == nil {
			return cs, st, nil
		}
		conn.Close()
		if attempt == 1 || ctx.Err() != nil || !start {
			return nil, st, fmt.Errorf("connect to session %q: %w", s.name, err)
		}
	}
}

// ensure dials the daemon, starting a new one under the session's lock if
// none answers and start is set.
func (s *session) ensure(ctx context.Context, start bool) (conn net.Conn, st status, err error) {
	if conn, err := s.dial(); err == nil {
		return conn, st, nil
	}
	deadline := time.Now().Add(startBudget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	unlock, err := lockFile(s.p.lock, deadline)
	if err != nil {
		return nil, st, err
	}
	defer unlock()
	// Another call may have started it while we waited for the lock.
	if conn, err := s.dial(); err == nil {
		return conn, st, nil
	}
	_, sockErr := os.Lstat(s.p.socket)
	old, stErr := readState(s.p.state)
	switch {
	case stErr == nil && alive(old.PID):
		// Alive without a socket: it is stopping (idle or close). Let it
		// finish stopping its browser before starting another.
		for alive(old.PID) {
			if time.Now().After(deadline) {
				return nil, st, fmt.Errorf("session %q: daemon pid %d does not answer on %s; stop it (kill %d) or use another --session", s.name, old.PID, s.p.socket, old.PID)
			}
			time.Sleep(25 * time.Millisecond)
		}
	case stErr == nil || sockErr == nil:
		// A state file or socket with no live daemon: it died.
		st.reset = true
	}
	os.Remove(s.p.socket)
	os.Remove(s.p.state)
	if !start {
		return nil, st, errNotRunning
	}
	st.started = true
	conn, err = s.start(ctx, deadline)
	return conn, st, err
}

// start runs a daemon in its own session (so the shell's Ctrl-C does not
// reach it) with its output in the log file, and waits for its socket.
func (s *session) start(ctx context.Context, deadline time.Time) (net.Conn, error) {
	logf, err := os.OpenFile(s.p.log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon log: %w", err)
	}
	defer logf.Close()
	args := append([]string{"daemon", "--session", s.name}, s.daemonArgs...)
	cmd := exec.Command(s.exe, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	sysproc.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start daemon: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	for {
		if conn, err := s.dial(); err == nil {
			return conn, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("the daemon exited at start: %s", s.logTail())
		case <-ctx.Done():
			cmd.Process.Kill()
			return nil, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			return nil, fmt.Errorf("the daemon did not listen within %s: %s", startBudget, s.logTail())
		}
	}
}

// logTail returns the last line of the daemon's log, or where the log is.
func (s *session) logTail() string {
	b, err := readTail(s.p.log, 4096)
	b = bytes.TrimSpace(b)
	if err != nil || len(b) == 0 {
		return "see " + s.p.log
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if len(b) > 300 {
		b = b[len(b)-300:]
	}
	return string(b) + " (log: " + s.p.log + ")"
}

// readTail returns at most the last n bytes of the regular file path.
func readTail(path string, n int64) ([]byte, error) {
	f, err := policy.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		if _, err := f.Seek(-n, io.SeekEnd); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, n))
}

// waitExit waits until the daemon whose state was st has exited.
func waitExit(ctx context.Context, pid int) error {
	for alive(pid) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("daemon pid %d still running: %w", pid, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
	return nil
}
