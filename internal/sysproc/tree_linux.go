package sysproc

import "syscall"

//lint:ignore U1000 Linux keeps no per-tree state; Tree.sys is used elsewhere
type treeSys struct{}

func (t *Tree) prepare() {
	if t.cmd.SysProcAttr == nil {
		t.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	t.cmd.SysProcAttr.Setpgid = true
	t.cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

func (t *Tree) start() error { return t.cmd.Start() }

func (t *Tree) kill() error {
	if t.cmd.Process == nil {
		return nil
	}
	return KillGroup(t.cmd.Process.Pid)
}

func (t *Tree) release() {}
