//go:build unix

package sysproc

import (
	"os/exec"
	"syscall"
)

// SetGroup prepares cmd, before it starts, to lead a process group of its
// own, so that KillGroup reaches what it starts and a terminal's Ctrl-C
// reaches only the caller. On Linux the child also gets onParentDeath when
// this process dies; other systems have no such signal (use a [Tree]).
func SetGroup(cmd *exec.Cmd, onParentDeath syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr, onParentDeath)
}
