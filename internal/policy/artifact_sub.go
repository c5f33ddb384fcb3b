package policy

import (
	"fmt"
	"os"
	"path/filepath"
)

// Sub returns the artifact dir's subdirectory name (created 0700 if
// needed) as an artifact dir of its own: what goes through it stays inside
// it, so that one client's files (an HTTP session's) are apart from the
// others' and it cannot reach theirs, by relative, absolute or symlinked
// paths. The parent stays open; close the sub when done with it.
func (a *Artifacts) Sub(name string) (*Artifacts, error) {
	rel, err := a.rel(name)
	if err != nil {
		return nil, err
	}
	if err := a.root.MkdirAll(rel, 0o700); err != nil {
		return nil, a.classify(name, filepath.Join(a.dir, rel), err)
	}
	root, err := a.root.OpenRoot(rel)
	if err != nil {
		return nil, fmt.Errorf("policy: opening artifact dir %s: %w", rel, err)
	}
	return &Artifacts{dir: filepath.Join(a.dir, rel), root: root}, nil
}

// CloseAndPrune closes the artifact dir and removes it, with its empty
// subdirectories, if no file was written to it (what a session that saved
// nothing leaves behind).
func (a *Artifacts) CloseAndPrune() {
	a.root.Close()
	if entries, err := os.ReadDir(a.dir); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				os.Remove(filepath.Join(a.dir, e.Name())) // fails, as it should, unless empty
			}
		}
	}
	os.Remove(a.dir)
}
