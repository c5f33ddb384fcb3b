package browser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
)

// Identity returns an id of the browser process, the same for every
// cdpkit attached to it and new for each launch; tab leases are keyed by
// it. Attached, it is the browser's DevTools websocket path
// (/devtools/browser/<uuid>, which Chromium mints per process; the host is
// left out, since clients may name it differently); launched, the pid and
// profile of the process cdpkit started (no other client can reach its
// pipe). It does no I/O; ctx is unused.
func (b *Browser) Identity(context.Context) (string, error) {
	if b.identity != "" {
		return b.identity, nil
	}
	return fmt.Sprintf("launched:%d:%s", b.PID(), b.ProfileDir()), nil
}

// endpointIdentity is an attached browser's identity from the websocket
// endpoint dialled. An endpoint of another shape (a grid's, a pool's) is
// hashed, since it may carry a credential.
func endpointIdentity(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && strings.HasPrefix(u.Path, "/devtools/browser/") {
		return u.Path
	}
	sum := sha256.Sum256([]byte(endpoint))
	return "ws:" + hex.EncodeToString(sum[:16])
}

// Identity is Browser.Identity.
func (c chromium) Identity(ctx context.Context) (string, error) { return c.b.Identity(ctx) }

// Backend names the protocol family whose target ids the tab ids are:
// "chrome".
func (c chromium) Backend() string { return "chrome" }
