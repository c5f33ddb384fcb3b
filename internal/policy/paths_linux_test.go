package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs with opts on a new dir and returns it, or
// skips the test where mounting is not allowed.
func mountTmpfs(t *testing.T, flags uintptr, opts string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, opts); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): run as root to test a full or read-only disk", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// TestArtifactsIOError: a write that the file system refuses (a full disk,
// a read-only one) is an *IOError (ErrIO, not ErrUnsafePath) naming the
// path and the OS error, and leaves no file, partial or empty, behind.
func TestArtifactsIOError(t *testing.T) {
	if syscall.Getuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	tests := []struct {
		name   string
		flags  uintptr
		opts   string
		size   int
		wantOS string
	}{
		{"full", 0, "size=64k", 1 << 20, "no space left on device"},
		{"read-only", syscall.MS_RDONLY, "size=64k", 10, "read-only file system"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mountTmpfs(t, tt.flags, tt.opts)
			a, err := OpenArtifacts(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			_, err = a.WriteFile("shot.png", make([]byte, tt.size))
			var ioe *IOError
			if !errors.As(err, &ioe) || !errors.Is(err, ErrIO) || errors.Is(err, ErrUnsafePath) {
				t.Fatalf("WriteFile = %v (%T), want an *IOError", err, err)
			}
			if want := filepath.Join(dir, "shot.png"); ioe.Path != want || !strings.Contains(ioe.Error(), want) {
				t.Errorf("IOError.Path = %q, message %q; want it to name %s", ioe.Path, ioe.Error(), want)
			}
			if !strings.Contains(ioe.Error(), tt.wantOS) {
				t.Errorf("message %q does not say %q", ioe.Error(), tt.wantOS)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}
