package sysproc

import (
	"os/exec"
	"sync"
)

// Tree is a process and every process it starts, which end together: Kill
// ends them all, and they end when this process dies, even of SIGKILL,
// by the means each OS offers:
//
//   - Linux: the leader gets SIGKILL when this process dies (Pdeathsig) and
//     leads a process group that Kill signals.
//   - macOS and the BSDs, which have no Pdeathsig: a process group plus a
//     watchdog, a tiny sh that reads a pipe only this process holds and
//     kills the group when the pipe closes, which the kernel does when this
//     process dies however it dies.
//   - Windows: a Job Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE; the
//     process starts suspended and runs only once it is in the job, so no
//     child escapes, and the kernel ends the job when its last handle (ours)
//     closes.
//
// For a browser launched with a CDP pipe, the pipe closing is the first
// line of defence: Chromium exits when it reads EOF. The Tree is the
// backstop for a browser that does not.
type Tree struct {
	cmd  *exec.Cmd
	once sync.Once
	//lint:ignore U1000 the per-OS state: empty on Linux, used on darwin and windows
	sys treeSys
}

// NewTree prepares cmd, which must not have started, to run as a Tree.
func NewTree(cmd *exec.Cmd) *Tree {
	t := &Tree{cmd: cmd}
	t.prepare()
	return t
}

// Start starts the command. On error nothing is left running.
func (t *Tree) Start() error { return t.start() }

// Kill ends every process in the tree. It is safe to call more than once,
// and after the leader has exited (its children may not have).
func (t *Tree) Kill() error { return t.kill() }

// Release frees what the Tree holds (the watchdog, the job handle) once
// the caller no longer needs Kill, normally after Kill and Wait. Releasing
// a tree whose processes still run kills them on Windows and macOS.
func (t *Tree) Release() { t.once.Do(t.release) }
