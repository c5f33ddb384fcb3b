//go:build unix && !linux

package sysproc

import "syscall"

type treeSys struct {
	dog *Watchdog
}

func (t *Tree) prepare() {
	if t.cmd.SysProcAttr == nil {
		t.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	t.cmd.SysProcAttr.Setpgid = true
}

func (t *Tree) start() error {
	if err := t.cmd.Start(); err != nil {
		return err
	}
	dog, err := StartWatchdog(t.cmd.Process.Pid)
	if err != nil {
		KillGroup(t.cmd.Process.Pid)
		t.cmd.Wait()
		return err
	}
	t.sys.dog = dog
	return nil
}

func (t *Tree) kill() error {
	if t.cmd.Process == nil {
		return nil
	}
	return KillGroup(t.cmd.Process.Pid)
}

func (t *Tree) release() {
	if t.sys.dog != nil {
		t.sys.dog.Stop()
	}
}
