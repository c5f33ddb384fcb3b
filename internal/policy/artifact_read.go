package policy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrTooLarge means a file is bigger than its reader allows.
var ErrTooLarge = errors.New("policy: file too large")

// ReadFile reads name from the artifact dir (relative, or absolute inside
// it) through the same confinement as WriteFile: a path that leaves the
// dir, also through a symlink, is a *PathError. A file over max bytes
// wraps ErrTooLarge and is not read.
func (a *Artifacts) ReadFile(name string, max int64) ([]byte, error) {
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
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, &PathError{Path: name, Reason: "not a regular file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("policy: reading %s: %w", rel, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("policy: %s is over %d bytes: %w", rel, max, ErrTooLarge)
	}
	return data, nil
}
