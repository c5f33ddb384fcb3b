package policy

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/cdpkit/cdpkit/internal/safefile"
)

// ErrUnsafePath means a path would leave the artifact dir, or is malformed.
var ErrUnsafePath = errors.New("policy: unsafe path")

// maxPathLen bounds a path given by an agent.
const maxPathLen = 512

// PathError says why a path was refused.
type PathError struct {
	Path   string
	Reason string
	Hint   string // what to do instead, when "a path inside the artifact dir, without .." is not it
	exists bool   // the file exists and is another process's (ErrExists)
}

func (e *PathError) Error() string { return fmt.Sprintf("%q: %s", e.Path, e.Reason) }
func (e *PathError) Unwrap() []error {
	if e.exists {
		return []error{ErrUnsafePath, ErrExists}
	}
	return []error{ErrUnsafePath}
}

// Artifacts is the one directory cdpkit writes files into (screenshots,
// snapshot files, …). Every write goes through an os.Root, so "..",
// absolute paths elsewhere and symlinks that point out are refused by the
// kernel-level lookup, not only by string checks.
type Artifacts struct {
	dir  string
	root *os.Root
	own  ownFiles // the files it wrote (artifact_owner.go)
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
// file's absolute path. See [Artifacts.Write].
func (a *Artifacts) WriteFile(name string, data []byte) (string, error) {
	return a.Write(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write creates name, relative to the artifact dir (an absolute name must
// lie inside it), with what fill writes, creating parent dirs, and returns
// the file's absolute path.
//
// fill writes to a new temporary file next to name, which is renamed over
// name only when every write succeeded: a failed write (a full disk) or a
// failed fill leaves no file, partial or empty, behind. An existing name
// that is not a regular file (a FIFO, a device, a directory, a symlink) or
// that has other hard links is refused with a [*PathError]: the write can
// neither block on a FIFO nor land in a file shared with a place outside
// the dir. An error of the file system (full, read-only, no permission) is
// an [*IOError]; an error of fill is returned as it is.
func (a *Artifacts) Write(name string, fill func(io.Writer) error) (string, error) {
	rel, err := a.rel(name)
	if err != nil {
		return "", err
	}
	abs := filepath.Join(a.dir, rel)
	if d := filepath.Dir(rel); d != "." {
		if err := a.root.MkdirAll(d, 0o700); err != nil {
			return "", a.classify(name, abs, err)
		}
	}
	if err := a.checkTarget(name, rel); err != nil {
		return "", err
	}
	if err := a.foreign(name, rel); err != nil {
		return "", err
	}
	f, tmp, err := a.createTemp(rel)
	if err != nil {
		return "", a.classify(name, abs, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			a.root.Remove(tmp)
		}
	}()
	if err := fill(f); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) || isErrno(err) {
			return "", &IOError{Path: abs, Err: err}
		}
		return "", err
	}
	// Sync so that a full disk is reported here rather than lost when the
	// file system allocates blocks later.
	if err := f.Sync(); err != nil {
		return "", &IOError{Path: abs, Err: err}
	}
	if err := f.Close(); err != nil {
		return "", &IOError{Path: abs, Err: err}
	}
	// The target is checked again: something may have been planted since.
	if err := cmp.Or(a.checkTarget(name, rel), a.foreign(name, rel)); err != nil {
		a.root.Remove(tmp)
		ok = true
		return "", err
	}
	if err := a.root.Rename(tmp, rel); err != nil {
		a.root.Remove(tmp)
		ok = true
		return "", a.classify(name, abs, err)
	}
	ok = true
	a.noteWritten(rel)
	return abs, nil
}

// tempSeq tells apart the temporary files of concurrent writes.
var tempSeq atomic.Uint64

// createTemp creates a new file next to rel, exclusively: a name that
// exists (whatever it is) is never opened.
func (a *Artifacts) createTemp(rel string) (*os.File, string, error) {
	dir, base := filepath.Split(rel)
	for range 10 {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d-%d.tmp", base, os.Getpid(), tempSeq.Add(1)))
		f, err := a.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", fmt.Errorf("policy: no free temporary name next to %s", rel)
}

// checkTarget refuses an existing rel that is not a plain file of its own.
func (a *Artifacts) checkTarget(name, rel string) error {
	fi, err := a.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return a.classify(name, filepath.Join(a.dir, rel), err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &PathError{Path: name, Reason: "is a symlink; cdpkit does not write through links",
			Hint: "remove it, or choose another file name"}
	case fi.IsDir():
		return &PathError{Path: name, Reason: "is a directory", Hint: "give a file name"}
	case !fi.Mode().IsRegular():
		return &PathError{Path: name, Reason: "exists and is not a regular file (" + safefile.Kind(fi.Mode()) + ")",
			Hint: "remove it, or choose another file name"}
	}
	if n := linkCount(fi); n > 1 {
		return &PathError{Path: name, Reason: fmt.Sprintf("has %d hard links, so a write could land outside the artifact dir", n),
			Hint: "remove it, or choose another file name"}
	}
	return nil
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
	// inside the root, and the file, if it exists, be a plain one.
	for p := rel; p != "."; p = filepath.Dir(p) {
		_, err := a.root.Stat(p)
		if err == nil {
			if p == rel {
				return cmp.Or(a.checkTarget(name, rel), a.foreign(name, rel))
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			if p == rel {
				if err := a.checkTarget(name, rel); err != nil {
					return err
				}
			}
			return a.classify(name, filepath.Join(a.dir, p), err)
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

// classify turns an error of the file system on name (at abs) into a
// *PathError when the path is at fault (it leads out of the dir, or
// through a file), else into an *IOError.
func (a *Artifacts) classify(name, abs string, err error) error {
	switch {
	case strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"):
		return &PathError{Path: name, Reason: "path leaves the artifact dir " + a.dir + " (through a symlink)"}
	case isNotDir(err):
		return &PathError{Path: name, Reason: "a part of the path is a file, not a directory", Hint: "choose another directory name"}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid):
		return &PathError{Path: name, Reason: err.Error()}
	}
	return &IOError{Path: abs, Err: err}
}

// ErrIO means the file system refused an artifact write: a full disk, a
// read-only file system, missing permission.
var ErrIO = errors.New("policy: artifact write failed")

// IOError is an artifact write the file system refused. Path is the file's
// absolute path; Err is the OS error.
type IOError struct {
	Path string
	Err  error
}

func (e *IOError) Error() string { return fmt.Sprintf("writing %s: %s", e.Path, osText(e.Err)) }

// Unwrap returns both ErrIO and the OS error, so that errors.Is works with
// syscall errors (such as syscall.ENOSPC) and fs.ErrPermission.
func (e *IOError) Unwrap() []error { return []error{ErrIO, e.Err} }

// osText is the OS's own words for err ("no space left on device"),
// without the temporary file name a *fs.PathError would add.
func osText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func isErrno(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno)
}
