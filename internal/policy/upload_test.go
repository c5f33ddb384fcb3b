package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUploadRootsCheck(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	other := filepath.Join(base, "other")
	for _, d := range []string{root, filepath.Join(root, "sub"), other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) string {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inRoot := write(filepath.Join(root, "a.txt"))
	inSub := write(filepath.Join(root, "sub", "b.txt"))
	secret := write(filepath.Join(other, "secret.txt"))
	symlink := func(target, name string) string {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
		return name
	}
	escapeFile := symlink(secret, filepath.Join(root, "escape.txt"))
	escapeDir := symlink(other, filepath.Join(root, "escape-dir"))
	inner := symlink(inSub, filepath.Join(root, "inner.txt"))
	linkedRoot := symlink(root, filepath.Join(base, "linked-root"))
	t.Chdir(root)

	home, _ := os.UserHomeDir()
	roots := UploadRoots{root}
	tests := []struct {
		name   string
		roots  UploadRoots
		path   string
		want   string // the resolved path, or "" for an error
		reason string // a substring of the refusal
	}{
		{"absolute", roots, inRoot, inRoot, ""},
		{"in a subdirectory", roots, inSub, inSub, ""},
		{"relative to the working directory", roots, "sub/b.txt", inSub, ""},
		{"dot-dot that stays inside", roots, "sub/../a.txt", inRoot, ""},
		{"symlink inside the root", roots, inner, inSub, ""},
		{"root given through a symlink", UploadRoots{linkedRoot}, filepath.Join(linkedRoot, "a.txt"), inRoot, ""},
		{"root given relative", UploadRoots{"."}, "a.txt", inRoot, ""},
		{"dot-dot out of the root", roots, "../other/secret.txt", "", "outside the upload roots"},
		{"symlinked file escaping", roots, escapeFile, "", "outside the upload roots"},
		{"symlinked dir escaping", roots, filepath.Join(escapeDir, "secret.txt"), "", "outside the upload roots"},
		{"missing under an escaping symlink", roots, filepath.Join(escapeDir, "nope.txt"), "", "outside the upload roots"},
		{"/etc/passwd", roots, "/etc/passwd", "", "outside the upload roots"},
		{"an ssh key", roots, filepath.Join(home, ".ssh", "id_rsa"), "", "outside the upload roots"},
		{"missing file", roots, filepath.Join(root, "missing.txt"), "", "no such file"},
		{"the root itself", roots, root, "", "outside the upload roots"},
		{"a directory", roots, filepath.Join(root, "sub"), "", "not a regular file"},
		{"no roots", nil, inRoot, "", "outside the upload roots (none)"},
		{"empty", roots, "", "", "empty path"},
		{"NUL", roots, "a\x00.txt", "", "NUL"},
		{"too long", roots, strings.Repeat("a", 600), "", "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.roots.Check(tt.path)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Fatalf("Check(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
				}
				return
			}
			var pe *PathError
			if !errors.As(err, &pe) || !errors.Is(err, ErrUnsafePath) || !strings.Contains(pe.Reason, tt.reason) {
				t.Fatalf("Check(%q) = %q, %v; want a PathError saying %q", tt.path, got, err, tt.reason)
			}
			if got != "" {
				t.Errorf("Check(%q) returned path %q with its error", tt.path, got)
			}
		})
	}
}

// TestSafeUploadRoot checks which directories may be an implicit upload
// root (issue #25 item 2): never /, the home directory, one above it, or
// one that holds credentials.
func TestSafeUploadRoot(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	project := filepath.Join(home, "src", "project")
	other := filepath.Join(t.TempDir(), "bob")
	for _, d := range []string{project, filepath.Join(home, ".ssh"), filepath.Join(other, ".aws")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		dir  string
		safe bool
	}{
		{project, true},
		{filepath.Join(home, "src"), true},
		{"/", false},
		{home, false},
		{home + "/", false},
		{filepath.Dir(home), false},
		{filepath.Join(home, ".ssh"), false},
		{other, false}, // holds .aws: someone's home
		{"/etc", false},
		{"/proc/self", false},
		{"relative", false},
		{"", false},
	} {
		err := SafeUploadRoot(tt.dir)
		if (err == nil) != tt.safe {
			t.Errorf("SafeUploadRoot(%q) = %v, want safe=%v", tt.dir, err, tt.safe)
		}
	}
}
