package policy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cdpkit/cdpkit/internal/safefile"
)

// The one way cdpkit reads a file it is pointed at (a storage state, a
// mock body, a trace, a config): only a regular file, opened so that a
// FIFO or a device swapped in between the check and the open cannot block
// the call, and read within the call's context and a size cap.

// ErrTooLarge means a file is bigger than its reader allows.
var ErrTooLarge = errors.New("policy: file too large")

// ReadFile reads name from the artifact dir (relative, or absolute inside
// it) through the same confinement as Write: a path that leaves the dir,
// also through a symlink, a file that is not a regular one (a FIFO, a
// device, a directory) or that has other hard links is a *PathError,
// refused without blocking. A file over max bytes wraps ErrTooLarge and is
// not read. ctx bounds the read.
func (a *Artifacts) ReadFile(ctx context.Context, name string, max int64) ([]byte, error) {
	f, err := a.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(ctx, f, name, max)
}

// Open opens name in the artifact dir (relative, or absolute inside it)
// for reading, through the same checks as ReadFile, for a reader that
// streams a file too large to read whole. The caller closes the file.
func (a *Artifacts) Open(name string) (*os.File, error) {
	rel, err := a.rel(name)
	if err != nil {
		return nil, err
	}
	fi, err := a.root.Stat(rel) // follows a link only as far as it stays inside
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &PathError{Path: name, Reason: "no such file in the artifact dir " + a.dir}
		}
		return nil, a.classify(name, filepath.Join(a.dir, rel), err)
	}
	if err := readable(name, fi); err != nil {
		return nil, err
	}
	f, err := a.root.OpenFile(rel, os.O_RDONLY|safefile.Nonblock, 0)
	if err != nil {
		return nil, a.classify(name, filepath.Join(a.dir, rel), err)
	}
	if err := sameRegular(name, fi, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenRegular opens path, anywhere, for reading when it is a regular file
// (a symlink to one is followed), without blocking on a FIFO or a device
// swapped in after the check: anything else is a *PathError. It is for
// files the operator names (a config file) and files cdpkit itself wrote
// outside the artifact dir.
func OpenRegular(path string) (*os.File, error) {
	f, err := safefile.Open(path)
	if errors.Is(err, safefile.ErrNotRegular) {
		reason := "changed while it was being opened"
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			reason = "is not a regular file (" + safefile.Kind(fi.Mode()) + ")"
		}
		return nil, &PathError{Path: path, Reason: reason}
	}
	return f, err
}

// ReadRegular reads path as OpenRegular opens it, within ctx and at most
// max bytes (else an error wrapping ErrTooLarge).
func ReadRegular(ctx context.Context, path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(ctx, f, path, max)
}

// readable refuses fi unless it is a regular file of its own, as Write
// refuses to replace anything else.
func readable(name string, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return &PathError{Path: name, Reason: "is a directory", Hint: "give a file name"}
	case !fi.Mode().IsRegular():
		return &PathError{Path: name, Reason: "is not a regular file (" + safefile.Kind(fi.Mode()) + ")",
			Hint: "give a file that save_storage_state or another cdpkit tool wrote, or copy the file into the artifact dir"}
	}
	if n := linkCount(fi); n > 1 {
		return &PathError{Path: name, Reason: fmt.Sprintf("has %d hard links, so it may be a file from outside the artifact dir", n),
			Hint: "copy the file into the artifact dir"}
	}
	return nil
}

// sameRegular checks that f, just opened, is still the regular file fi
// described: not something swapped in between the check and the open.
func sameRegular(name string, fi fs.FileInfo, f *os.File) error {
	if err := safefile.Same(fi, f); err != nil {
		return &PathError{Path: name, Reason: "changed while it was being opened", Hint: "retry once nothing else writes it"}
	}
	return nil
}

// readAll reads f whole, stopping when ctx ends or past max bytes.
func readAll(ctx context.Context, f *os.File, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(ContextReader(ctx, f), max+1))
	if err != nil {
		return nil, fmt.Errorf("policy: reading %s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("policy: %s is over %d bytes: %w", name, max, ErrTooLarge)
	}
	return data, nil
}

// ContextReader returns a reader of r that fails with ctx's error once
// ctx is done, checked before every read.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
