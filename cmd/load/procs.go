package main

import (
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// cpuTicks is the CPU time (user + system, in clock ticks) each process of
// a tree has used, by pid, split into the server's and the browser's.
type cpuTicks struct{ server, browser map[int]int64 }

// cpuOf reads the CPU time of root's tree.
func cpuOf(root int) cpuTicks {
	c := cpuTicks{server: map[int]int64{}, browser: map[int]int64{}}
	sysproc.WalkTree(root, func(pid int, inBrowser bool) {
		if t, ok := sysproc.CPUTicks(pid); ok {
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
		return float64(t) / sysproc.ClockTicks
	}
	return sum(c.server, before.server), sum(c.browser, before.browser)
}
