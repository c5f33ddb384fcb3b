package cdpkit

import (
	"context"
	"time"
)

// ClaimOptions say which tab Claim leases. Nil means a new tab.
type ClaimOptions struct {
	// Tab takes over an open tab, named as Browser.Tab names one (never
	// one another agent holds: LEASE_CONFLICT); "" opens a new tab.
	Tab string
	// Label says who holds it, shown to agents that are refused it.
	Label string
	// TTL is how long the lease lasts without a call before another
	// agent may reclaim it; zero means 15 minutes.
	TTL time.Duration
}

// Claim leases a tab in the lease store of Options.LeaseDir, so that
// other agents (other processes, other MCP sessions) are refused it, and
// returns it: the returned Tab passes its lease on every call. Each call
// renews the lease; Release gives it back.
func (b *Browser) Claim(ctx context.Context, o *ClaimOptions) (*Tab, error) {
	if o == nil {
		o = &ClaimOptions{}
	}
	var out struct {
		Lease    string `json:"lease"`
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "claim_page", map[string]any{"target": o.Tab, "label": o.Label,
		"ttlMs": int(o.TTL / time.Millisecond)}, &out); err != nil {
		return nil, err
	}
	return &Tab{b: b, id: out.TargetID, lease: out.Lease}, nil
}

// Lease is the token of the tab's lease, "" for a tab not from Claim.
func (t *Tab) Lease() string { return t.lease }

// Release gives the tab's lease back and closes the tab if Claim opened
// it; a tab without a lease fails with INVALID_ARGS.
func (t *Tab) Release(ctx context.Context) error {
	if t.lease == "" {
		return &Error{Code: "INVALID_ARGS", Message: "this tab holds no lease", Hint: "Release a tab that Claim returned"}
	}
	return t.b.call(ctx, "release_page", map[string]any{"lease": t.lease}, nil)
}
