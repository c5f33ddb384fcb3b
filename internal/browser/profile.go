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

// newProfile creates a fresh temporary profile owned by this process in
// parent ("" is the temp dir).
func newProfile(parent string) (string, error) { return sysproc.MkdirOwnedIn(parent, profilePrefix) }

// removeProfile deletes a profile, retrying while Chromium flushes files.
func removeProfile(dir string) error { return sysproc.RemoveAll(dir) }

// SweepProfiles removes temporary profiles and browser temp dirs left in
// the temp dir by cdpkit processes that are no longer alive (killed, or a
// launch that failed half-way), and that no live browser uses. It returns
// how many it removed.
func SweepProfiles(log *slog.Logger) int { return sweepProfilesIn(log, "") }

// sweepProfilesIn is SweepProfiles in parent ("" is the temp dir).
func sweepProfilesIn(log *slog.Logger, parent string) int {
	return sysproc.SweepOwnedIn(log, parent, profilePrefix) + sysproc.SweepOwnedIn(log, parent, tmpPrefix)
}
