package browser

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

// profilePrefix names the temporary profiles cdpkit creates, so that a
// later cdpkit can find the ones a dead one left behind.
const profilePrefix = "cdpkit-profile-"

// ownerFile inside a profile holds the pid of the cdpkit that made it.
const ownerFile = "cdpkit.owner"

// newProfile creates a fresh temporary profile owned by this process.
func newProfile() (string, error) {
	dir, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return "", err
	}
	pid := strconv.Itoa(os.Getpid())
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(pid), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// removeProfile deletes a profile. Chromium may still be flushing files for
// a moment after it exits, so it retries briefly.
func removeProfile(dir string) error {
	var err error
	for range 5 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// SweepProfiles removes temporary profiles left in the temp dir by cdpkit
// processes that are no longer alive. It returns how many it removed.
func SweepProfiles(log *slog.Logger) int {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), profilePrefix) {
			continue
		}
		dir := filepath.Join(os.TempDir(), e.Name())
		if !abandoned(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("browser: removing abandoned profile", "dir", dir, "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		log.Info("browser: removed abandoned profiles", "count", n)
	}
	return n
}

// abandoned reports whether the profile's owner is dead. A profile with no
// owner file is abandoned once it is a minute old (a cdpkit that died
// between creating the dir and writing the file).
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
	return !alive(pid)
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
