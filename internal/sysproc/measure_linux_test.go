package sysproc

import (
	"os"
	"testing"
)

// TestMeasureOwnProcess reads this test process as the measurement
// programs read a server: its parent, CPU time, memory and tree.
func TestMeasureOwnProcess(t *testing.T) {
	pid := os.Getpid()
	if ppid, ok := Parent(pid); !ok || ppid != os.Getppid() {
		t.Errorf("Parent(self) = %d, %v; want %d", ppid, ok, os.Getppid())
	}
	if _, ok := CPUTicks(pid); !ok {
		t.Error("CPUTicks(self) failed")
	}
	var seen bool
	WalkTree(pid, func(p int, inBrowser bool) { seen = seen || p == pid && !inBrowser })
	if !seen {
		t.Error("WalkTree(self) did not visit self as a non-browser process")
	}
	if server, browser := TreeMemory(pid); server.Procs < 1 || server.RSS <= 0 || browser.Procs != 0 {
		t.Errorf("TreeMemory(self) = %+v, %+v", server, browser)
	}
	if LoadAverage() < 0 {
		t.Error("LoadAverage() unknown on Linux")
	}
	if _, ok := Parent(-1); ok {
		t.Error("Parent(-1) ok")
	}
}
