package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrUnsafePath means a path would leave the artifact dir, or is malformed.
var ErrUnsafePath = errors.New("policy: unsafe path")

// maxPathLen bounds a path given by an agent.
const maxPathLen = 512

// PathError says why a path was refused.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("%q: %s", e.Path, e.Reason) }
func (e *PathError) Unwrap() error { return ErrUnsafePath }

// Artifacts is the one directory cdpkit writes files into (screenshots,
// snapshot files, …). Every write goes through an os.Root, so "..",
// absolute paths elsewhere and symlinks that point out are refused by the
// kernel-level lookup, not only by string checks.
type Artifacts struct {
	dir  string
	root *os.Root
}

// DefaultArtifactDir is where artifacts go when CDPKIT_ARTIFACT_DIR is
// unset: the user's cache dir, else the temp dir.
func DefaultArtifactDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cdpkit", "artifacts")
	}
	return filepath.Join(os.TempDir(), "cdpkit-artifacts")
}

// OpenArtifacts creates dir (0700) if needed and opens it.
func OpenArtifacts(dir string) (*Artifacts, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("policy: creating artifact dir: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("policy: opening artifact dir: %w", err)
	}
	return &Artifacts{dir: abs, root: root}, nil
}

// Dir returns the artifact dir's absolute path.
func (a *Artifacts) Dir() string { return a.dir }

// Close releases the directory handle.
func (a *Artifacts) Close() error { return a.root.Close() }

// WriteFile writes data to name, relative to the artifact dir (an
// absolute name must lie inside it), creating parent dirs, and returns the
// file's absolute path.
func (a *Artifacts) WriteFile(name string, data []byte) (string, error) {
	rel, err := a.rel(name)
	if err != nil {
		return "", err
	}
	if d := filepath.Dir(rel); d != "." {
		if err := a.root.MkdirAll(d, 0o700); err != nil {
			return "", a.refuse(name, err)
		}
	}
	f, err := a.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", a.refuse(name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("policy: writing %s: %w", rel, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("policy: writing %s: %w", rel, err)
	}
	return filepath.Join(a.dir, rel), nil
}

// Check reports whether WriteFile(name, …) would be refused for the path
// alone, without writing: so that a tool can refuse a bad path before it
// does the work whose result it would write. WriteFile checks again.
func (a *Artifacts) Check(name string) error {
	rel, err := a.rel(name)
	if err != nil {
		return err
	}
	// The nearest existing ancestor (or the file itself) must resolve
	// inside the root.
	for p := rel; p != "."; p = filepath.Dir(p) {
		_, err := a.root.Stat(p)
		if err == nil {
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return a.refuse(name, err)
		}
	}
	return nil
}

// rel validates name and returns it relative to the artifact dir.
func (a *Artifacts) rel(name string) (string, error) {
	switch {
	case name == "":
		return "", &PathError{Path: name, Reason: "empty path"}
	case strings.ContainsRune(name, 0):
		return "", &PathError{Path: strings.ReplaceAll(name, "\x00", `\0`), Reason: "path contains a NUL byte"}
	case len(name) > maxPathLen:
		return "", &PathError{Path: name[:40] + "…", Reason: fmt.Sprintf("path longer than %d bytes", maxPathLen)}
	}
	if filepath.IsAbs(name) {
		r, err := filepath.Rel(a.dir, filepath.Clean(name))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return "", &PathError{Path: name, Reason: "absolute path outside the artifact dir " + a.dir}
		}
		name = r
	}
	clean := filepath.Clean(name)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &PathError{Path: name, Reason: "path leaves the artifact dir " + a.dir}
	}
	return clean, nil
}

// refuse turns an os.Root error into a PathError when it is an escape.
func (a *Artifacts) refuse(name string, err error) error {
	if strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes") {
		return &PathError{Path: name, Reason: "path leaves the artifact dir " + a.dir + " (through a symlink)"}
	}
	return &PathError{Path: name, Reason: err.Error()}
}
