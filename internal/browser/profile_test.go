package browser

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestSweepProfiles(t *testing.T) {
	t.Parallel()
	tmp := privateTempDir(t)

	// A pid that was alive a moment ago and is surely dead now.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatalf("running true: %v", err)
	}
	deadPID := strconv.Itoa(dead.Process.Pid)
	self := strconv.Itoa(os.Getpid())
	old := time.Now().Add(-2 * time.Minute)

	tests := []struct {
		name     string
		owner    *string // nil: no owner file
		modTime  time.Time
		wantKept bool
	}{
		{name: profilePrefix + "dead", owner: &deadPID, wantKept: false},
		{name: profilePrefix + "self", owner: &self, wantKept: true},
		{name: profilePrefix + "garbage", owner: ptr("not a pid"), wantKept: false},
		{name: profilePrefix + "zero", owner: ptr("0"), wantKept: false},
		{name: profilePrefix + "init", owner: ptr("1"), wantKept: true},
		{name: profilePrefix + "noowner-new", wantKept: true},
		{name: profilePrefix + "noowner-old", modTime: old, wantKept: false},
		{name: "other-dead", owner: &deadPID, wantKept: true},
		{name: tmpPrefix + "dead", owner: &deadPID, wantKept: false},
		{name: tmpPrefix + "self", owner: &self, wantKept: true},
	}
	for _, tt := range tests {
		dir := filepath.Join(tmp, tt.name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if tt.owner != nil {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(*tt.owner), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if !tt.modTime.IsZero() {
			if err := os.Chtimes(dir, tt.modTime, tt.modTime); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A profile-named file, not a dir, is never touched.
	file := filepath.Join(tmp, profilePrefix+"file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	wantRemoved := 0
	for _, tt := range tests {
		if !tt.wantKept {
			wantRemoved++
		}
	}
	if got := sweepProfilesIn(slog.New(slog.NewTextHandler(io.Discard, nil)), tmp); got != wantRemoved {
		t.Errorf("SweepProfiles() = %d, want %d", got, wantRemoved)
	}
	for _, tt := range tests {
		_, err := os.Stat(filepath.Join(tmp, tt.name))
		if kept := err == nil; kept != tt.wantKept {
			t.Errorf("%s: kept = %v (stat err %v), want %v", tt.name, kept, err, tt.wantKept)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("%s: %v, want the file kept", file, err)
	}

	// A profile from newProfile is owned by this live process.
	p, err := newProfile(tmp)
	if err != nil {
		t.Fatalf("newProfile: %v", err)
	}
	if filepath.Dir(p) != tmp {
		t.Errorf("newProfile(%s) = %s, want it in %s", tmp, p, tmp)
	}
	// With no parent it goes where SweepProfiles looks: the temp dir.
	if q, err := newProfile(""); err != nil || filepath.Dir(q) != filepath.Clean(os.TempDir()) {
		t.Errorf("newProfile(\"\") = %s, %v; want it in os.TempDir() %s", q, err, os.TempDir())
	} else {
		removeProfile(q)
	}
	if got := sweepProfilesIn(slog.New(slog.NewTextHandler(io.Discard, nil)), tmp); got != 0 {
		t.Errorf("second SweepProfiles() = %d, want 0", got)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("own profile after sweep: %v", err)
	}
	if err := removeProfile(p); err != nil {
		t.Errorf("removeProfile: %v", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after removeProfile: stat err = %v, want not exist", err)
	}
}

func ptr[T any](v T) *T { return &v }
