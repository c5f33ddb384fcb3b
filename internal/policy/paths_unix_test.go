//go:build unix

package policy

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestArtifactsRefuseSpecialFiles: a FIFO, a device or a hard-linked file
// planted in the artifact dir is UNSAFE_PATH (ErrUnsafePath), for Check
// and WriteFile; a write never blocks on a FIFO, and never lands in a file
// a hard link shares with a place outside the dir.
func TestArtifactsRefuseSpecialFiles(t *testing.T) {
	base := t.TempDir()
	a, err := OpenArtifacts(filepath.Join(base, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	fifo := filepath.Join(a.Dir(), "pipe.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader on the FIFO keeps code that would open it for writing from
	// blocking forever, so that the test reports instead of hanging.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	outside := filepath.Join(base, "outside.txt")
	if err := os.WriteFile(outside, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(a.Dir(), "linked.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(a.Dir(), "null.png")); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"pipe.png", "linked.png", "null.png"} {
		if err := a.Check(name); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Check(%q) = %v, want ErrUnsafePath", name, err)
		}
		if _, err := a.WriteFile(name, []byte("x")); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("WriteFile(%q) = %v, want ErrUnsafePath", name, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Errorf("the file outside the dir now holds %q", b)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}
