package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind: a configured path wins over $CDPKIT_FFMPEG, which wins over
// PATH; a path that names no file is ErrNoFFmpeg naming it.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	configured := filepath.Join(dir, "configured")
	fromEnv := filepath.Join(dir, "from-env")
	for _, p := range []string{configured, fromEnv} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvFFmpeg, fromEnv)
	if got, err := Find(configured); err != nil || got != configured {
		t.Errorf("Find(configured) = %q, %v; want %q", got, err, configured)
	}
	if got, err := Find(""); err != nil || got != fromEnv {
		t.Errorf("Find(\"\") = %q, %v; want $%s %q", got, err, EnvFFmpeg, fromEnv)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct{ arg, env string }{{missing, ""}, {"", missing}} {
		t.Setenv(EnvFFmpeg, c.env)
		if _, err := Find(c.arg); !errors.Is(err, ErrNoFFmpeg) || !strings.Contains(err.Error(), missing) {
			t.Errorf("Find(%q) with $%s=%q: %v, want ErrNoFFmpeg naming the path", c.arg, EnvFFmpeg, c.env, err)
		}
	}
}
