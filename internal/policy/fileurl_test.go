package policy

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestFileURLs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	allowed := filepath.Join(root, "site")
	secret := filepath.Join(root, "secret")
	for _, d := range []string{allowed, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(allowed, "a.html"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "key"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(allowed, "escape")
	symlinks := runtime.GOOS != "windows" && os.Symlink(secret, link) == nil
	u := func(p string) string { return "file://" + filepath.ToSlash(p) }
	p := &Policy{FileDirs: []string{allowed}}
	tests := []struct {
		url  string
		want error
	}{
		{u(filepath.Join(allowed, "a.html")), nil},
		{u(filepath.Join(allowed, "missing.html")), nil}, // the browser shows its own error page
		{u(allowed), nil},
		{"FILE://localhost" + filepath.ToSlash(filepath.Join(allowed, "a.html")), nil},
		{u(filepath.Join(secret, "key")), ErrURLBlocked},
		{u(allowed) + "/../secret/key", ErrURLBlocked},
		{u(allowed) + "/%2e%2e/secret/key", ErrURLBlocked},
		{u(allowed) + "/..%2fsecret/key", ErrURLBlocked},
		{"file://evil.example" + filepath.ToSlash(filepath.Join(allowed, "a.html")), ErrURLBlocked},
		{u(root), ErrURLBlocked},
	}
	if symlinks {
		tests = append(tests, struct {
			url  string
			want error
		}{u(filepath.Join(link, "key")), ErrURLBlocked})
	}
	for _, tt := range tests {
		if err := p.Check(t.Context(), tt.url); !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
			t.Errorf("Check(%s) = %v, want %v", tt.url, err, tt.want)
		}
	}
	// Without directories the refusal stands, and says which flag lifts it.
	var ue *URLError
	if err := (&Policy{}).Check(t.Context(), u(filepath.Join(allowed, "a.html"))); !errors.As(err, &ue) || !errors.Is(err, ErrURLBlocked) {
		t.Fatalf("default policy on a file URL = %v, want URL blocked", err)
	} else if ue.Hint != fileHint {
		t.Errorf("hint %q, want %q", ue.Hint, fileHint)
	}
}
