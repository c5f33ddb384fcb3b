// Package sysproc holds cdpkit's operating-system specific process code:
// process trees that die together (tree_*.go), process groups and detached
// daemons, file locks, liveness, Linux's /proc, and temporary directories
// owned by a process, so that whoever runs next can clean up after a
// process that was killed. It is shared by the browser launcher, the CLI
// daemon, the benchmark driver and the tests. It builds for Linux, macOS
// (and the BSDs) and Windows; what only Linux has is documented as such.
package sysproc

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Matching returns, in ascending order, the pids of live processes whose
// command line contains substr (NUL separators read as spaces). It excludes
// the calling process and zombies, and passes over entries it cannot read
// (processes that exited mid-scan). It returns nil where /proc is missing.
// The result is a snapshot: processes can start or exit right after.
func Matching(substr string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := Cmdline(pid)
		if err != nil || !strings.Contains(cmdline, substr) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil || State(string(stat)) == 'Z' {
			continue
		}
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}

// Cmdline returns the command line of pid with its NUL separators replaced
// by spaces.
func Cmdline(pid int) (string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return "", err
	}
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), nil
}

// State returns the state letter from the contents of /proc/PID/stat, or 0
// if it cannot be found. The state follows the command name, which is in
// parentheses and may itself contain spaces and parentheses, so the search
// starts after the last ')'.
func State(stat string) byte {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) || stat[i+1] != ' ' {
		return 0
	}
	return stat[i+2]
}

// Kill ends the single process pid at once: SIGKILL on Unix,
// TerminateProcess on Windows. Tests use it to crash a browser or a daemon.
func Kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
