package sysproc

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestState(t *testing.T) {
	for stat, want := range map[string]byte{
		"1 (init) S 0":         'S',
		"2 (a) b) (c) Z 1":     'Z',
		"3 (weird name) R 1 2": 'R',
		"garbage":              0,
	} {
		if got := State(stat); got != want {
			t.Errorf("State(%q) = %q, want %q", stat, got, want)
		}
	}
}

func TestSweepOwned(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	const prefix = "sysproc-test-"
	mine, err := MkdirOwned(prefix)
	if err != nil {
		t.Fatal(err)
	}
	// A directory owned by a process that has exited.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(orphan, OwnerFile), []byte(strconv.Itoa(dead.Process.Pid)), 0o600)
	// A dead owner's directory that a live process still names is kept.
	busy, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(busy, OwnerFile), []byte(strconv.Itoa(dead.Process.Pid)), 0o600)
	sleeper := exec.Command("sh", "-c", "sleep 30; : "+busy)
	SetGroup(sleeper, 0)
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { KillGroup(sleeper.Process.Pid); sleeper.Wait() }()

	if got := SweepOwned(slog.New(slog.NewTextHandler(io.Discard, nil)), prefix); got != 1 {
		t.Errorf("SweepOwned removed %d, want 1", got)
	}
	for dir, want := range map[string]bool{mine: true, orphan: false, busy: true} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v, want %v", dir, got, want)
		}
	}
	if !Alive(os.Getpid()) || Alive(dead.Process.Pid) {
		t.Errorf("Alive(self) = %v, Alive(exited) = %v", Alive(os.Getpid()), Alive(dead.Process.Pid))
	}
}

func TestTail(t *testing.T) {
	tail := &Tail{Max: 8}
	tail.Write([]byte("hello "))
	tail.Write([]byte("world\n"))
	if got := tail.String(); got != "o world" {
		t.Errorf("Tail.String() = %q, want the last 8 bytes trimmed, %q", got, "o world")
	}
}
