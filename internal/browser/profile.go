package browser

import (
	"log/slog"

	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// profilePrefix names the temporary profiles cdpkit creates, so that a
// later cdpkit can find the ones a dead one left behind.
const profilePrefix = "cdpkit-profile-"

// tmpPrefix names the TMPDIR cdpkit gives each browser it launches.
const tmpPrefix = "cdpkit-tmp-"

// ownerFile inside a profile holds the pid of the cdpkit that made it.
const ownerFile = sysproc.OwnerFile

// newProfile creates a fresh temporary profile owned by this process.
func newProfile() (string, error) { return sysproc.MkdirOwned(profilePrefix) }

// removeProfile deletes a profile, retrying while Chromium flushes files.
func removeProfile(dir string) error { return sysproc.RemoveAll(dir) }

// SweepProfiles removes temporary profiles and browser temp dirs left in
// the temp dir by cdpkit processes that are no longer alive (killed, or a
// launch that failed half-way), and that no live browser uses. It returns
// how many it removed.
func SweepProfiles(log *slog.Logger) int {
	return sysproc.SweepOwned(log, profilePrefix) + sysproc.SweepOwned(log, tmpPrefix)
}
