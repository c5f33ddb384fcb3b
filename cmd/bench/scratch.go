package main

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// scratchPrefix names the bench's scratch directories in the temp dir, so
// that a later run can find the ones a killed run left behind.
const scratchPrefix = "cdpkit-bench-"

// ownerFile inside a scratch directory holds the pid of the bench that made
// it.
const ownerFile = "bench.owner"

// newScratch creates a scratch directory owned by this process.
func newScratch() (string, error) {
	dir, err := os.MkdirTemp("", scratchPrefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// removeScratch makes sure nothing launched under dir still runs, then
// removes it. Stages stop their own browsers; this is the last line of
// defence, so anything it finds is logged.
func removeScratch(log *slog.Logger, dir string) {
	if left := waitGone(dir, 5*time.Second); len(left) > 0 {
		log.Warn("killing processes left running under the scratch directory", "pids", left)
		killPIDs(left)
		waitGone(dir, 5*time.Second)
	}
	var err error
	for range 5 { // a browser may still be flushing files for a moment
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	log.Warn("removing the scratch directory", "dir", dir, "err", err)
}

// sweepScratch removes scratch directories whose bench is dead, and returns
// how many it removed.
func sweepScratch(log *slog.Logger) int {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), scratchPrefix) {
			continue
		}
		dir := filepath.Join(os.TempDir(), e.Name())
		if !abandoned(dir) || len(processesMatching(dir)) > 0 {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("removing an abandoned scratch directory", "dir", dir, "err", err)
			continue
		}
		n++
	}
	return n
}

// abandoned reports whether the bench that owns dir is dead. A directory
// without an owner is abandoned once it is a minute old.
func abandoned(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		fi, serr := os.Stat(dir)
		return serr == nil && time.Since(fi.ModTime()) > time.Minute
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return true
	}
	err = syscall.Kill(pid, 0)
	return err != nil && !errors.Is(err, syscall.EPERM)
}
