package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// processesMatching is sysproc.Matching.
var processesMatching = sysproc.Matching

// waitGone polls until no process matches substr or within passes, and
// returns the pids still running.
func waitGone(substr string, within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		pids := processesMatching(substr)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killPIDs sends SIGKILL to each pid. Callers pass only processes the bench
// started, found by a directory unique to this run.
func killPIDs(pids []int) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

// treeMemory is the memory of a set of processes.
type treeMemory struct {
	procs int
	rss   int64 // sum of VmRSS: counts shared pages once per process
	pss   int64 // sum of Pss: counts shared pages once
}

// memoryOf sums the memory of the processes whose command line contains
// substr. A process that exits mid-scan is left out.
func memoryOf(substr string) treeMemory {
	var m treeMemory
	for _, pid := range processesMatching(substr) {
		rss, err := sysproc.RSS(pid)
		if err != nil {
			continue
		}
		m.procs++
		m.rss += rss
		if pss, err := sysproc.PSS(pid); err == nil {
			m.pss += pss
		}
	}
	return m
}

// serverTree is the memory of a server's process tree, split into the
// browser it launched and everything else (the server itself and any
// helper processes it runs).
type serverTree struct {
	server, browser treeMemory
}

// treeOf walks the descendants of root. A descendant whose executable is a
// Chromium build starts the browser's part of the tree; the rest is the
// server's. A process that exits mid-scan is left out.
func treeOf(root int) serverTree {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, err := parentOf(pid); err == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var t serverTree
	var walk func(pid int, inBrowser bool)
	walk = func(pid int, inBrowser bool) {
		inBrowser = inBrowser || isBrowser(pid)
		m := &t.server
		if inBrowser {
			m = &t.browser
		}
		if rss, err := sysproc.RSS(pid); err == nil {
			m.procs++
			m.rss += rss
			if pss, err := sysproc.PSS(pid); err == nil {
				m.pss += pss
			}
		}
		for _, c := range children[pid] {
			walk(c, inBrowser)
		}
	}
	walk(root, false)
	return t
}

// parentOf reads pid's parent from /proc/pid/stat.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces; the fields after
	// it are state, then ppid.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat of %d", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("malformed stat of %d", pid)
	}
	return strconv.Atoi(f[1])
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

// loadAverage returns the 1-minute load average, or -1 when unknown: how
// busy the machine was, which the results record beside the figures.
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
