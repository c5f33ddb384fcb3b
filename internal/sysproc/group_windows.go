package sysproc

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// SetGroup prepares cmd, before it starts, to lead a console process
// group of its own, so that Ctrl-C reaches only the caller. Windows has no
// parent-death signal; KillGroup ends the tree.
func SetGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}
