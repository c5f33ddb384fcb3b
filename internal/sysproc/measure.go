package sysproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// What the measurement programs (cmd/bench, cmd/load, cmd/soak) read of a
// server's process tree from Linux's /proc. Elsewhere they find nothing:
// an empty tree, no load average.

// Memory is the memory of a set of processes.
type Memory struct {
	Procs int   `json:"procs"`
	RSS   int64 `json:"rss"` // sum of VmRSS: counts shared pages once per process
	PSS   int64 `json:"pss"` // sum of Pss (smaps_rollup): counts shared pages once
}

// add counts pid in m; false when it has exited.
func (m *Memory) add(pid int) bool {
	rss, err := RSS(pid)
	if err != nil {
		return false
	}
	m.Procs++
	m.RSS += rss
	if pss, err := PSS(pid); err == nil {
		m.PSS += pss
	}
	return true
}

// MemoryOf sums the memory of pids; a process that exited is left out.
func MemoryOf(pids []int) Memory {
	var m Memory
	for _, pid := range pids {
		m.add(pid)
	}
	return m
}

// TreeMemory returns the memory of root's tree, split as WalkTree splits
// it: the browser's part and the rest (the server's). A process that exits
// mid-scan is left out.
func TreeMemory(root int) (server, browser Memory) {
	WalkTree(root, func(pid int, inBrowser bool) {
		if inBrowser {
			browser.add(pid)
		} else {
			server.add(pid)
		}
	})
	return server, browser
}

// WalkTree calls f for root and each of its descendants, telling whether
// it is part of a browser: a Chromium executable or a process under one.
func WalkTree(root int, f func(pid int, inBrowser bool)) {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := Parent(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var walk func(pid int, inBrowser bool)
	walk = func(pid int, inBrowser bool) {
		inBrowser = inBrowser || IsBrowser(pid)
		f(pid, inBrowser)
		for _, c := range children[pid] {
			walk(c, inBrowser)
		}
	}
	walk(root, false)
}

// statFields returns the fields of /proc/pid/stat after the command name,
// which, in parentheses, may hold spaces: state, ppid, …
func statFields(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// Parent returns pid's parent; false when pid is gone or unreadable.
func Parent(pid int) (int, bool) {
	f := statFields(pid)
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// CPUTicks returns the CPU time pid has used (user + system) in clock
// ticks (ClockTicks a second); false when pid is gone or unreadable.
func CPUTicks(pid int) (int64, bool) {
	f := statFields(pid)
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	return u + s, err1 == nil && err2 == nil
}

// ClockTicks is Linux's USER_HZ, 100 on every platform Go supports.
const ClockTicks = 100

// IsBrowser reports whether pid runs a Chromium executable.
func IsBrowser(pid int) bool {
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	if err != nil {
		return false
	}
	base := filepath.Base(exe)
	return strings.HasPrefix(base, "chrom") || strings.HasPrefix(base, "headless_shell")
}

// LoadAverage returns the 1-minute load average, or -1 when unknown: how
// busy the machine was, which results record beside their figures.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}
