package policy

import (
	"errors"
	"os"
	"path/filepath"
)

// Open opens name in the artifact dir (relative, or absolute inside it)
// for reading, through the same confinement as ReadFile, for a reader that
// streams a file too large to read whole. The caller closes the file.
func (a *Artifacts) Open(name string) (*os.File, error) {
	rel, err := a.rel(name)
	if err != nil {
		return nil, err
	}
	f, err := a.root.Open(rel)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &PathError{Path: name, Reason: "no such file in the artifact dir " + a.dir}
		}
		return nil, a.classify(name, filepath.Join(a.dir, rel), err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, &PathError{Path: name, Reason: "not a regular file"}
	}
	return f, nil
}
