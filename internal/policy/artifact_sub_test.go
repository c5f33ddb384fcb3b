package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestArtifactsSub checks that a sub artifact dir keeps what goes through
// it inside it: the parent's files are out of reach by relative, absolute
// and symlinked paths, and an unused sub is pruned.
func TestArtifactsSub(t *testing.T) {
	dir := t.TempDir()
	a, err := OpenArtifacts(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	secret, err := a.WriteFile("sessions/a/state.json", []byte(`{"cookies":"a's"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Sub("sessions/b")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "sessions", "b"); b.Dir() != want {
		t.Errorf("Dir() = %q, want %q", b.Dir(), want)
	}
	if err := os.Symlink(secret, filepath.Join(b.Dir(), "link.json")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../a/state.json", secret, "link.json", filepath.Join(dir, "sessions", "b", "..", "a", "state.json")} {
		if data, err := b.ReadFile(t.Context(), name, 1<<20); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("ReadFile(%q) = %q, %v; want ErrUnsafePath", name, data, err)
		}
		if _, err := b.WriteFile(name, []byte("x")); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("WriteFile(%q) = %v, want ErrUnsafePath", name, err)
		}
	}
	if p, err := b.WriteFile("shot.png", []byte("png")); err != nil || filepath.Dir(p) != b.Dir() {
		t.Errorf("WriteFile(shot.png) = %q, %v; want a file in %s", p, err, b.Dir())
	}

	c, err := a.Sub("sessions/c")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(c.Dir(), "downloads"), 0o700); err != nil {
		t.Fatal(err)
	}
	c.CloseAndPrune()
	if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unused sub dir is left behind: %v", err)
	}
	b.CloseAndPrune()
	if _, err := os.Stat(filepath.Join(b.Dir(), "shot.png")); err != nil {
		t.Errorf("pruning removed a sub dir with a file: %v", err)
	}
	if _, err := a.Sub("../out"); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("Sub(../out) = %v, want ErrUnsafePath", err)
	}
}

// TestArtifactsNoCrossProcessOverwrite checks that two processes sharing
// one artifact dir (two Artifacts over it) cannot overwrite each other's
// files: each may save over its own, the other is refused with a hint and
// the first's file is intact, as is a file the user put there.
func TestArtifactsNoCrossProcessOverwrite(t *testing.T) {
	dir := t.TempDir()
	first, err := OpenArtifacts(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := OpenArtifacts(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()

	if _, err := first.WriteFile("trace.json", []byte("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := first.WriteFile("trace.json", []byte("first again")); err != nil {
		t.Errorf("saving over its own file: %v", err)
	}
	for _, try := range []func() error{
		func() error { _, err := second.WriteFile("trace.json", []byte("second")); return err },
		func() error { return second.Check("trace.json") },
		func() error { return second.Check(filepath.Join(dir, "trace.json")) },
	} {
		err := try()
		var pe *PathError
		if !errors.Is(err, ErrExists) || !errors.Is(err, ErrUnsafePath) || !errors.As(err, &pe) || pe.Hint == "" {
			t.Errorf("the second process writing the first's trace.json: %v, want ErrExists with a hint", err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "trace.json")); string(data) != "first again" {
		t.Errorf("trace.json holds %q, want the first process's", data)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := first.WriteFile("notes.txt", []byte("x")); !errors.Is(err, ErrExists) {
		t.Errorf("overwriting the user's file: %v, want ErrExists", err)
	}
	// Removing the file is how one asks to replace it.
	os.Remove(filepath.Join(dir, "trace.json"))
	if _, err := second.WriteFile("trace.json", []byte("second")); err != nil {
		t.Errorf("writing a removed file: %v", err)
	}
}
