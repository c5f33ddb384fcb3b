package main

import (
	"os"
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

// memoryOf sums the memory of the processes whose command line contains
// substr. A process that exits mid-scan is left out.
func memoryOf(substr string) sysproc.Memory { return sysproc.MemoryOf(processesMatching(substr)) }
