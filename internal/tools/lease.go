package tools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/lease"
)

// leaseArg is the argument every tab tool accepts, outside its schema like
// timeout_ms: the lease token of the tab the call acts on.
const leaseArg = "lease"

// leaseBackend is what a Driver says about itself for leases: which
// protocol family its tab ids belong to, and the identity of the browser
// process every client attached to it shares.
type leaseBackend interface {
	Backend() string
	Identity(ctx context.Context) (string, error)
}

// owner is who this env's calls hold leases as: this process and the
// client (an HTTP session, the stdio client, a CLI session).
func (env *Env) owner() lease.Owner {
	return lease.Owner{PID: os.Getpid(), Client: env.Client}
}

// leaseTab names the tab id of b's browser for the lease store.
func leaseTab(ctx context.Context, b driver.Driver, id string) (lease.Tab, error) {
	lb, ok := b.(leaseBackend)
	if !ok {
		return lease.Tab{}, errorf(Internal, false, "this backend does not support leases", "leases are not supported by this browser backend")
	}
	ident, err := lb.Identity(ctx)
	if err != nil {
		return lease.Tab{}, err
	}
	return lease.Tab{Backend: lb.Backend(), Browser: ident, TargetID: id}, nil
}

// takeLease removes the lease argument from raw arguments and returns it.
func takeLease(raw json.RawMessage) (json.RawMessage, string, error) {
	if !bytes.Contains(raw, []byte(`"`+leaseArg+`"`)) {
		return raw, "", nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, "", nil // not an object: decoding says so
	}
	v, ok := m[leaseArg]
	if !ok {
		return raw, "", nil
	}
	var token string
	if err := json.Unmarshal(v, &token); err != nil {
		return nil, "", errorf(InvalidArgs, false, "give lease as the token claim_page returned", "lease is not a string")
	}
	delete(m, leaseArg)
	out, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	return out, token, nil
}

// parseToken checks a lease token's form.
func parseToken(token string) (backend, targetID, nonce string, err error) {
	backend, targetID, nonce, err = lease.ParseToken(token)
	if err != nil {
		return "", "", "", errorf(InvalidArgs, false, "give lease as the token claim_page returned (backend:targetId:nonce)", "lease %q is not a lease token", token)
	}
	return backend, targetID, nonce, nil
}

// admitLease is the lease check of the door, before any side effect on
// tab: a tab another owner holds is refused with LEASE_CONFLICT unless
// token is its lease's; a tab leased with a token needs that token even
// from its owner; an auto lease passes its owner without one. Every call
// it admits on a lease refreshes it. In strict mode (RequireLease), a tab
// nobody holds is acquired for the call's owner (an auto lease).
func (env *Env) admitLease(ctx context.Context, b driver.Driver, tab driver.TabDriver, token string) error {
	if env.Leases == nil {
		if token != "" {
			return errorf(InvalidArgs, false, "drop lease: this cdpkit keeps no leases", "leases are off")
		}
		return nil
	}
	if _, ok := b.(leaseBackend); !ok {
		// A backend that keeps no leases: nothing to check unless one is asked for.
		if token != "" || env.RequireLease {
			return errorf(Unsupported, false, "drop lease and --require-lease, or use the Chromium backend",
				"this browser backend keeps no tab leases")
		}
		return nil
	}
	key, err := leaseTab(ctx, b, tab.ID())
	if err != nil {
		return err
	}
	rec, err := env.Leases.Get(key)
	if err != nil {
		return env.conflict(b, key, err)
	}
	live := rec != nil && env.Leases.Stale(rec) == ""
	if token != "" {
		backend, id, nonce, err := parseToken(token)
		if err != nil {
			return err
		}
		if backend != key.Backend || id != key.TargetID {
			return errorf(InvalidArgs, false, "drop target to act on the lease's tab, or pass the lease of the tab you name",
				"lease is for tab %s, but the call names tab %s", id, key.TargetID)
		}
		if live && rec.Nonce == nonce {
			_, err := env.Leases.Touch(key, nonce)
			return env.conflict(b, key, err)
		}
		if live {
			return env.conflict(b, key, &lease.HeldError{Record: rec})
		}
		// The token's lease is gone (released, or stale): the tab is as
		// free as one never leased.
	} else if live {
		if rec.Auto && rec.Owner == env.owner() {
			_, err := env.Leases.Touch(key, rec.Nonce)
			return env.conflict(b, key, err)
		}
		return env.conflict(b, key, &lease.HeldError{Record: rec})
	}
	if !env.RequireLease {
		return nil
	}
	_, err = env.Leases.Claim(key, lease.Claim{Owner: env.owner(), Auto: true, TTL: env.LeaseTTL})
	return env.conflict(b, key, err)
}

// conflict renders a lease refusal of key's tab as LEASE_CONFLICT, naming
// the tab, its url and the holder's label; other errors pass unchanged,
// nil stays nil.
func (env *Env) conflict(b driver.Driver, key lease.Tab, err error) error {
	var he *lease.HeldError
	if !errors.As(err, &he) {
		return err
	}
	url := ""
	if pages, perr := b.PagesNow(nil); perr == nil {
		for _, p := range pages {
			if p.ID == key.TargetID {
				url = p.URL
			}
		}
	}
	if he.Record == nil && he.Unreadable != "" {
		return errorf(LeaseConflict, false, "list_leases shows the record; if its holder is gone, remove the file from the lease dir "+env.Leases.Dir(),
			"tab %s (%s) has a lease record that cannot be read (%s); it is never taken as free", key.TargetID, url, he.Unreadable)
	}
	if he.Record == nil {
		return errorf(LeaseConflict, true, "claim the tab again with claim_page", "the lease on tab %s (%s) was released or reclaimed", key.TargetID, url)
	}
	r := he.Record
	who := r.Label
	if r.Owner == env.owner() && !r.Auto {
		return errorf(LeaseConflict, false, "pass the token claim_page returned as lease (an explicit lease demands it even from its holder)",
			"tab %s (%s) is leased by %s and this call gave no matching lease token", key.TargetID, url, who)
	}
	return errorf(LeaseConflict, false, "use another tab (new_page or claim_page), or pass the tab's lease token; list_leases shows who holds what",
		"tab %s (%s) is leased by %s", key.TargetID, url, who)
}

// newClientID returns a fresh client id for an HTTP session.
func newClientID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "http-" + hex.EncodeToString(b)
}

// dropOwnerLeases removes every lease the env's owner holds on b's
// browser: its session ended.
func (env *Env) dropOwnerLeases(ctx context.Context, b driver.Driver) {
	if env.Leases == nil {
		return
	}
	lb, ok := b.(leaseBackend)
	if !ok {
		return
	}
	ident, err := lb.Identity(ctx)
	if err != nil {
		return
	}
	rows, err := env.Leases.List(lb.Backend(), ident)
	if err != nil {
		return
	}
	for _, r := range rows {
		if r.Unreadable == "" && r.Owner == env.owner() {
			env.Leases.Drop(lease.Tab{Backend: lb.Backend(), Browser: ident, TargetID: r.TargetID})
		}
	}
}

// defaultLabel is a lease's or origin's label when the caller gives none.
func (env *Env) defaultLabel() string {
	if env.Client == "" {
		return fmt.Sprintf("pid-%d", os.Getpid())
	}
	return fmt.Sprintf("pid-%d/%s", os.Getpid(), env.Client)
}

// leaseNewTab records that cdpkit opened tab (the creation ledger) and,
// with claim or in strict mode, leases it to the caller, filling res's
// lease fields.
func (env *Env) leaseNewTab(ctx context.Context, b driver.Driver, tab driver.TabDriver, in newPageArgs, res *pageResult) error {
	if env.Leases == nil {
		return nil
	}
	key, err := leaseTab(ctx, b, tab.ID())
	if err != nil {
		return err
	}
	label := in.Label
	if label == "" {
		label = env.defaultLabel()
	}
	if err := env.Leases.RecordOrigin(key, label); err != nil {
		env.Log.Warn("recording a tab's creation", "err", err)
	}
	if !in.Claim && !env.RequireLease {
		return nil
	}
	ttl, _ := env.checkTTL(in.TTLMs)
	rec, err := env.Leases.Claim(key, lease.Claim{Owner: env.owner(), Label: label, Auto: !in.Claim, TTL: ttl})
	if err != nil {
		return env.conflict(b, key, err)
	}
	res.Auto = rec.Auto
	if !rec.Auto {
		res.Lease = rec.Token()
	}
	res.ExpiresAt = rec.ExpiresAt()
	return nil
}

// dropLease removes the lease of a tab that closed.
func (env *Env) dropLease(ctx context.Context, b driver.Driver, id string) {
	if env.Leases == nil {
		return
	}
	if key, err := leaseTab(ctx, b, id); err == nil {
		env.Leases.Drop(key)
	}
}

// pageRow is a tab as list_pages shows it, with the creation ledger's
// word on who opened it.
type pageRow struct {
	PageID int `json:"pageId"` // see pageid.go
	driver.Page
	// Origin says who opened the tab, as far as cdpkit knows: agent
	// (new_page or claim_page, with its label), cdpkit (itself: a
	// session's first tab, a launched browser's first tab), page (a page
	// did, from the tab OpenerID) or unknown; never "human".
	Origin           string `json:"origin"`
	OpenerID         string `json:"openerId,omitempty"`
	Label            string `json:"label,omitempty"`
	CreatedAt        int64  `json:"createdAt,omitempty"`
	OriginUnreadable string `json:"originUnreadable,omitempty"`
}

// withOrigins adds the creation ledger to pages, and drops the ledger's
// records of tabs that closed. A missing ledger makes every tab unknown.
func (env *Env) withOrigins(ctx context.Context, b driver.Driver, pages []driver.Page) []pageRow {
	rows := make([]pageRow, 0, len(pages))
	var origins map[string]lease.OriginRow
	if env.Leases != nil {
		if key, err := leaseTab(ctx, b, ""); err == nil {
			if all, err := b.PagesNow(nil); err == nil {
				open := map[string]bool{}
				for _, p := range all {
					open[p.ID] = true
				}
				origins, _ = env.Leases.PruneOrigins(key.Backend, key.Browser, open)
			} else {
				origins, _ = env.Leases.Origins(key.Backend, key.Browser)
			}
		}
	}
	for _, p := range pages {
		row := pageRow{Page: p, Origin: "unknown"}
		switch {
		case p.Made:
			row.Origin = "cdpkit"
		case p.OpenerID != "":
			row.Origin, row.OpenerID = "page", p.OpenerID
		}
		if o, ok := origins[p.ID]; ok {
			if o.Unreadable != "" {
				row.OriginUnreadable = o.Unreadable
			} else {
				row.Origin, row.Label, row.CreatedAt = "agent", o.Label, o.CreatedAt
			}
		}
		rows = append(rows, row)
	}
	return rows
}
