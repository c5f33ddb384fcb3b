package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// treeMemory is the memory of a set of processes.
type treeMemory struct {
	Procs int   `json:"procs"`
	RSS   int64 `json:"rss"` // sum of VmRSS: counts shared pages once per process
	PSS   int64 `json:"pss"` // sum of Pss (smaps_rollup): counts shared pages once
}

// cpuTicks is the CPU time (user + system, in clock ticks) each process of
// a tree has used, by pid, split into the server's and the browser's.
type cpuTicks struct{ server, browser map[int]int64 }

// cpuOf reads the CPU time of root's tree.
func cpuOf(root int) cpuTicks {
	c := cpuTicks{server: map[int]int64{}, browser: map[int]int64{}}
	walkTree(root, func(pid int, inBrowser bool) {
		if t, ok := ticksOf(pid); ok {
			if inBrowser {
				c.browser[pid] = t
			} else {
				c.server[pid] = t
			}
		}
	})
	return c
}

// since returns the CPU seconds the server's and the browser's processes
// used between before and c; a process new since before counts whole.
func (c cpuTicks) since(before cpuTicks) (server, browser float64) {
	sum := func(now, then map[int]int64) float64 {
		var t int64
		for pid, v := range now {
			t += v - then[pid]
		}
		return float64(t) / clockTicks
	}
	return sum(c.server, before.server), sum(c.browser, before.browser)
}

// clockTicks is Linux's USER_HZ, 100 on every platform Go supports.
const clockTicks = 100

// ticksOf reads utime + stime from /proc/pid/stat.
func ticksOf(pid int) (int64, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	return u + s, err1 == nil && err2 == nil
}

// treeOf returns the memory of root's tree: a process running a Chromium
// executable starts the browser's part, the rest is the server's. A
// process that exits mid-scan is left out.
func treeOf(root int) (server, browser treeMemory) {
	walkTree(root, func(pid int, inBrowser bool) {
		m := &server
		if inBrowser {
			m = &browser
		}
		if rss, err := sysproc.RSS(pid); err == nil {
			m.Procs++
			m.RSS += rss
			if pss, err := sysproc.PSS(pid); err == nil {
				m.PSS += pss
			}
		}
	})
	return server, browser
}

// walkTree calls f for root and each of its descendants, telling whether
// it is part of the browser: a Chromium executable or a process under one.
func walkTree(root int, f func(pid int, inBrowser bool)) {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var walk func(pid int, inBrowser bool)
	walk = func(pid int, inBrowser bool) {
		inBrowser = inBrowser || isBrowser(pid)
		f(pid, inBrowser)
		for _, c := range children[pid] {
			walk(c, inBrowser)
		}
	}
	walk(root, false)
}

// parentOf reads pid's parent from /proc/pid/stat, whose command name in
// parentheses may hold spaces; the fields after it are state, then ppid.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// isBrowser reports whether pid runs a Chromium executable.
func isBrowser(pid int) bool {
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	if err != nil {
		return false
	}
	base := filepath.Base(exe)
	return strings.HasPrefix(base, "chrom") || strings.HasPrefix(base, "headless_shell")
}

// loadAverage is the 1-minute load average, or -1 when unknown.
func loadAverage() float64 {
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
