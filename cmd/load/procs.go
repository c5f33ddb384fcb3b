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

// treeOf walks root and its descendants: a process running a Chromium
// executable starts the browser's part of the tree, the rest is the
// server's. A process that exits mid-scan is left out.
func treeOf(root int) (server, browser treeMemory) {
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
		for _, c := range children[pid] {
			walk(c, inBrowser)
		}
	}
	walk(root, false)
	return server, browser
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
