package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmPackage returns the directory of the npm package spec ("name@version",
// pinned so that a new release cannot change a test under us), installing
// it on first use into the user cache dir (outside the repo): later runs
// reuse it. It skips the test when npm is absent, unless
// CDPKIT_REQUIRE_BROWSER=1 (CI), where that is a failure.
func npmPackage(t *testing.T, spec string) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CDPKIT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("npm is required (CDPKIT_REQUIRE_BROWSER=1): %v", err)
		}
		t.Skipf("npm not found: %v", err)
	}
	name := spec[:strings.LastIndex(spec, "@")]
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Join(cache, "cdpkit-test")
	dir := filepath.Join(parent, "npm-"+strings.NewReplacer("@", "", "/", "-").Replace(spec))
	pkg := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
	if _, err := os.Stat(filepath.Join(pkg, "package.json")); err == nil {
		return pkg
	}
	t.Logf("npm %s: installing into %s (once; later runs reuse it)", spec, dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	// Install beside it and rename into place, so that a concurrent or
	// interrupted install never leaves a half-filled dir behind.
	tmp, err := os.MkdirTemp(parent, "npm-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", tmp, spec)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", spec, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(pkg, "package.json")); statErr != nil {
			t.Fatalf("installing %s into %s: %v", spec, dir, err)
		}
	}
	return pkg
}
