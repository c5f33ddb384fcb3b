package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMoveSaved checks that a file the daemon saved in the artifact dir is
// moved to the path given on the command line, relative to the current
// directory, replacing a symlink planted there rather than writing
// through it, and that the result then names the new path.
func TestMoveSaved(t *testing.T) {
	artifacts, cwd := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	src := filepath.Join(artifacts, "recordings", "screen-recording-1.mp4")
	os.MkdirAll(filepath.Dir(src), 0o700)
	if err := os.WriteFile(src, []byte("mp4 data"), 0o600); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "bashrc")
	os.WriteFile(victim, []byte("keep me"), 0o600)
	os.MkdirAll(filepath.Join(cwd, "out"), 0o700)
	if err := os.Symlink(victim, filepath.Join(cwd, "out", "run.mp4")); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"path": src, "bytes": 8})
	o := &output{data: data, render: "path: " + src + "\nbytes: 8\n"}
	if err := o.moveSaved("out/run.mp4"); err != nil {
		t.Fatalf("moveSaved: %v", err)
	}
	want := filepath.Join(cwd, "out", "run.mp4")
	if got, err := os.ReadFile(want); err != nil || string(got) != "mp4 data" {
		t.Errorf("%s holds %q, %v; want the recording", want, got, err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Errorf("the symlink's target was written: %q", got)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("the artifact dir keeps a second copy: %v", err)
	}
	if o.savedTo != want || !strings.Contains(string(o.data), want) || strings.Contains(string(o.data), src) || o.render != "path: "+want+"\nbytes: 8\n" {
		t.Errorf("the result names %s / %s / %q, want %s", o.savedTo, o.data, o.render, want)
	}
}
