package firefox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Identity returns an id of the Firefox process for tab leases, the same
// for every cdpkit driving it and new for each launch: launched, the pid
// and profile of the process cdpkit started; attached, a hash of the
// websocket endpoint (which may carry a credential). It does no I/O; ctx
// is unused.
func (b *Browser) Identity(context.Context) (string, error) {
	if b.proc == nil {
		sum := sha256.Sum256([]byte(b.o.WSEndpoint))
		return "ws:" + hex.EncodeToString(sum[:16]), nil
	}
	return fmt.Sprintf("launched:%d:%s", b.PID(), b.Profile()), nil
}

// Backend names the family the tab ids (browsing context ids) belong to
// in lease tokens: "firefox".
func (b *Browser) Backend() string { return "firefox" }
