package webdriver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"

	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/sysproc"
)

// OwnerCapability is the extension capability cdpkit adds to every session
// it asks for: the host and process that asked. A Selenium Grid reports it
// back with the session in its /status, so a later cdpkit on the same host
// can find a session whose owner is gone ([Client.ReapOrphans]) whatever
// state folder either used: one held by a cdpkit that was killed, or one
// the Grid created from a request cdpkit had withdrawn when it exited.
// Remote ends ignore an extension capability they do not know.
const OwnerCapability = "cdpkit:owner"

// Owner is the value of [OwnerCapability].
type Owner struct {
	Host string `json:"host"`
	PID  int    `json:"pid"`
}

// Self is the Owner that this process writes.
func Self() Owner {
	host, _ := os.Hostname()
	return Owner{Host: host, PID: os.Getpid()}
}

// orphaned reports whether o names a cdpkit on this host that is no
// longer running. A live process with that pid (maybe another program
// that reused it) keeps the session: better a session freed late by the
// Grid's own timeout than another agent's browser deleted.
func (o Owner) orphaned(self Owner) bool {
	return o.Host != "" && o.Host == self.Host && o.PID > 0 && o.PID != self.PID && !sysproc.Alive(o.PID)
}

// gridSession is a session as a Selenium Grid's /status lists it.
type gridSession struct {
	ID   string `json:"sessionId"`
	Caps struct {
		Owner *Owner `json:"cdpkit:owner"`
	} `json:"capabilities"`
}

// gridStatus is what cdpkit reads of a Selenium Grid's /status: its slots
// and the session in each. chromedriver's /status has no nodes.
type gridStatus struct {
	Nodes []struct {
		Slots []struct {
			Session *gridSession `json:"session"`
		} `json:"slots"`
	} `json:"nodes"`
}

// status reads the remote end's /status, bounded by ctx and RequestTimeout.
func (c *Client) status(ctx context.Context) (gridStatus, error) {
	var st gridStatus
	err := c.do(ctx, RequestTimeout, http.MethodGet, "/status", nil, &st)
	return st, err
}

// Capacity reports how many of a Selenium Grid's slots hold a session, and
// how many it has. ok is false when the remote end lists no slots (such
// as chromedriver) or does not answer before ctx ends.
func (c *Client) Capacity(ctx context.Context) (busy, slots int, ok bool) {
	st, err := c.status(ctx)
	if err != nil {
		return 0, 0, false
	}
	for _, n := range st.Nodes {
		for _, s := range n.Slots {
			slots++
			if s.Session != nil {
				busy++
			}
		}
	}
	return busy, slots, slots > 0
}

// ReapOrphans deletes the sessions a Selenium Grid lists whose
// [OwnerCapability] names a cdpkit on this host that is no longer running,
// and returns how many it deleted. A remote end without a Grid's /status
// has none to find. ctx bounds the whole sweep.
func (c *Client) ReapOrphans(ctx context.Context, log *slog.Logger) int {
	st, err := c.status(ctx)
	if err != nil {
		return 0
	}
	self := Self()
	n := 0
	for _, node := range st.Nodes {
		for _, slot := range node.Slots {
			gs := slot.Session
			if gs == nil || gs.Caps.Owner == nil || !gs.Caps.Owner.orphaned(self) {
				continue
			}
			s := &Session{ID: gs.ID, c: c}
			if err := s.Delete(ctx); err != nil {
				log.Warn("deleting a WebDriver session whose cdpkit is gone", "url", policy.RedactEndpoint(c.base), "session", gs.ID, "pid", gs.Caps.Owner.PID, "err", err)
				continue
			}
			n++
			log.Info("deleted a WebDriver session whose cdpkit is gone", "url", policy.RedactEndpoint(c.base), "session", gs.ID, "pid", gs.Caps.Owner.PID)
		}
	}
	return n
}

// ownerCap is Self as a capability value.
func ownerCap() json.RawMessage {
	b, _ := json.Marshal(Self())
	return b
}
