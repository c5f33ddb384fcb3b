//go:build unix

package sysproc

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// Watchdog kills a process group when this process dies, on systems
// without Pdeathsig: a /bin/sh in its own group blocks reading a pipe whose
// only write end this process holds. When this process exits for any
// reason, SIGKILL included, the kernel closes that end, the read returns,
// and the shell kills the group.
type Watchdog struct {
	cmd *exec.Cmd
	w   *os.File
}

// StartWatchdog starts a watchdog for the process group pgid.
func StartWatchdog(pgid int) (*Watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	defer r.Close()
	// read fails at EOF; either way the group is killed next.
	script := fmt.Sprintf("read _ ; kill -s KILL -- -%d 2>/dev/null", pgid) // POSIX form: dash and macOS sh
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdin = r
	// Its own group, so that killing the watched group or a terminal's
	// Ctrl-C to ours does not take the watchdog first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	return &Watchdog{cmd: cmd, w: w}, nil
}

// Stop ends the watchdog without letting it kill the group: it is killed
// first, so a group id reused after the group has gone is never signalled.
func (d *Watchdog) Stop() {
	d.cmd.Process.Kill()
	d.w.Close()
	d.cmd.Wait()
}

// Trigger makes the watchdog act as if this process had died: it closes
// the pipe and waits for the shell to kill the group and exit. For tests.
func (d *Watchdog) Trigger() {
	d.w.Close()
	d.cmd.Wait()
}
