//go:build unix

package policy

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadRefusesSpecialFiles: a FIFO planted in the artifact dir (also
// behind a symlink inside it), a device behind a symlink out of it, a
// hard-linked file and a directory are refused by ReadFile and Open
// without blocking, as Write refuses them (issue #40 item 1). No writer
// ever opens the FIFO: code that opens it plainly hangs here.
func TestReadRefusesSpecialFiles(t *testing.T) {
	base := t.TempDir()
	a, err := OpenArtifacts(filepath.Join(base, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := syscall.Mkfifo(filepath.Join(a.Dir(), "state.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("state.json", filepath.Join(a.Dir(), "via-link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(a.Dir(), "zero.json")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside.json")
	if err := os.WriteFile(outside, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(a.Dir(), "linked.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(a.Dir(), "dir.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"state.json", filepath.Join(a.Dir(), "state.json"), "via-link.json", "zero.json", "linked.json", "dir.json"} {
		if f, err := a.Open(name); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Open(%q) = %v, want ErrUnsafePath", name, err)
			if f != nil {
				f.Close()
			}
		}
		if _, err := a.ReadFile(t.Context(), name, 1<<20); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("ReadFile(%q) = %v, want ErrUnsafePath", name, err)
		}
	}
	if _, err := ReadRegular(t.Context(), filepath.Join(a.Dir(), "state.json"), 1<<20); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("ReadRegular(a FIFO) = %v, want ErrUnsafePath", err)
	}
	if _, err := ReadRegular(t.Context(), "/dev/zero", 1<<20); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("ReadRegular(/dev/zero) = %v, want ErrUnsafePath", err)
	}
}
