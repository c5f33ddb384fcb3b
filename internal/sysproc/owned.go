package sysproc

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/safefile"
)

// OwnerFile, inside an owned directory, holds the pid of its owner.
const OwnerFile = "owner.pid"

// MkdirOwned creates a directory in the temp dir named prefix + random,
// recording this process as its owner.
func MkdirOwned(prefix string) (string, error) { return MkdirOwnedIn("", prefix) }

// MkdirOwnedIn is MkdirOwned in parent ("" is the temp dir).
func MkdirOwnedIn(parent, prefix string) (string, error) {
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, OwnerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// RemoveAll removes dir, retrying briefly: a process that just exited may
// still be flushing files into it.
func RemoveAll(dir string) error {
	var err error
	for range 5 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// Abandoned reports whether an owned directory's owner is dead. A
// directory without an owner file is abandoned once it is a minute old (its
// owner died between creating it and writing the file).
func Abandoned(dir string) bool {
	// Not a plain read: the temp dir is shared, and an owner file planted as
	// a FIFO would block the sweep at every start.
	b, err := readOwner(filepath.Join(dir, OwnerFile))
	if err != nil {
		fi, serr := os.Stat(dir)
		return serr == nil && time.Since(fi.ModTime()) > time.Minute
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return true
	}
	return !Alive(pid)
}

// readOwner reads an owner file, at most 64 bytes of it.
func readOwner(path string) ([]byte, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 64))
}

// SweepOwned removes the directories in the temp dir named prefix… whose
// owner is dead and that no live process names on its command line, and
// returns how many it removed.
func SweepOwned(log *slog.Logger, prefix string) int { return SweepOwnedIn(log, "", prefix) }

// SweepOwnedIn is SweepOwned in parent ("" is the temp dir).
func SweepOwnedIn(log *slog.Logger, parent, prefix string) int {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if !Abandoned(dir) || len(Matching(dir)) > 0 {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("removing an abandoned temporary directory", "dir", dir, "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		log.Info("removed abandoned temporary directories", "prefix", prefix, "count", n)
	}
	return n
}
