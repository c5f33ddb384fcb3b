//go:build unix

package sysproc

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestAbandonedFIFOOwnerFile: an owner file that is a FIFO (planted in a
// shared temp dir) is not opened, so the start-up sweep cannot block on it
// (issue #40 item 1); a fresh directory holding one counts as without an
// owner file, not yet abandoned.
func TestAbandonedFIFOOwnerFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, OwnerFile), 0o600); err != nil {
		t.Fatal(err)
	}
	if Abandoned(dir) {
		t.Error("a fresh directory whose owner file is a FIFO is abandoned, want not yet")
	}
}
