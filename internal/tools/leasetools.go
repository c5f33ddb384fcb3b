package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/lease"
)

// maxLeaseTTL bounds a lease's ttlMs.
const maxLeaseTTL = 24 * time.Hour

type claimPageArgs struct {
	Target   string `json:"target,omitempty" jsonschema:"take over an open tab: active, index:N, url:SUBSTR, title:SUBSTR or a tab id; omit (with targetId) to open a fresh tab"`
	TargetID string `json:"targetId,omitempty" jsonschema:"take over the open tab with exactly this id"`
	Label    string `json:"label,omitempty" jsonschema:"who holds it, shown to others refused: one line of at most 128 characters (default pid-PID/CLIENT)"`
	TTLMs    int    `json:"ttlMs,omitempty" jsonschema:"ms without a call before the lease may be reclaimed (default 900000)"`
}

type releasePageArgs struct {
	Lease  string `json:"lease,omitempty" jsonschema:"the token claim_page or new_page returned"`
	Target string `json:"target,omitempty" jsonschema:"instead of lease: the tab whose auto lease (strict mode) to give back"`
	Close  *bool  `json:"close,omitempty" jsonschema:"close the tab (default: only if cdpkit opened it)"`
}

type listLeasesArgs struct{}

func leaseTools() []Tool {
	return []Tool{
		define(Tool{
			Name: "claim_page",
			Description: "Lease a tab so other agents are refused it: a fresh tab (no target), or an open one (target or targetId; never one another agent holds). " +
				"Pass the returned lease token as `lease` on every call on that tab.",
			Verbs: []Verb{{Name: "claim", Args: []string{"target?"}, Summary: "lease a tab (a fresh one, or target) for this session; prints the token for --lease", Rank: 40}},
		}, claimPage),
		defineOn(Tool{
			Name:        "release_page",
			Description: "Give a lease back (by lease token, or target for an auto lease). Closes the tab if cdpkit opened it, unless close is false.",
			Idempotent:  true,
			NoQueue:     true,
			Recovers:    true, Dialog: DialogPasses,
			Verbs: []Verb{{Name: "release", Args: []string{"lease"}, Summary: "give a lease back (closes the tab if cdpkit opened it)", Rank: 41}},
		}, releasePage),
		define(Tool{
			Name:        "list_leases",
			Description: "List tab leases on this browser: holder label, pid, auto, expiry, and stale reason (dead-pid, expired, target-gone). Never shows tokens.",
			ReadOnly:    true,
		}, listLeases),
	}
}

// checkTTL turns a ttlMs argument into a duration; zero means the env's.
func (env *Env) checkTTL(ms int) (time.Duration, error) {
	if ms < 0 || time.Duration(ms)*time.Millisecond > maxLeaseTTL {
		return 0, errorf(InvalidArgs, false, "give ttlMs above 0 and at most 86400000, or omit it", "ttlMs %d is out of range", ms)
	}
	if ms == 0 {
		return env.LeaseTTL, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func (env *Env) needLeases() error {
	if env.Leases == nil {
		return errorf(InvalidArgs, false, "this cdpkit was started without a lease store", "leases are off")
	}
	return nil
}

func (in *claimPageArgs) check(_ context.Context, env *Env) error {
	if err := env.needLeases(); err != nil {
		return err
	}
	if in.Target != "" && in.TargetID != "" {
		return errorf(InvalidArgs, false, "give target or targetId, not both", "target and targetId both given")
	}
	if err := checkLabel(in.Label); err != nil {
		return err
	}
	_, err := env.checkTTL(in.TTLMs)
	return err
}

// checkLabel refuses a lease label other agents could not read safely.
func checkLabel(label string) error {
	if err := lease.CheckLabel(label); err != nil {
		return errorf(InvalidArgs, false, fmt.Sprintf("give a short name on one line: at most %d characters, no newlines, tabs or escape codes", lease.MaxLabel),
			"label %s", strings.TrimPrefix(err.Error(), lease.ErrBadLabel.Error()+": "))
	}
	return nil
}

// claimResult is a lease as its holder sees it: with the token.
type claimResult struct {
	Lease     string `json:"lease"`
	TargetID  string `json:"targetId"`
	URL       string `json:"url"`
	Label     string `json:"label"`
	TTLMs     int64  `json:"ttlMs"`
	ExpiresAt int64  `json:"expiresAt"`
	Opened    bool   `json:"opened"`
}

func claimPage(ctx context.Context, env *Env, in claimPageArgs) (*Result, error) {
	b, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, err
	}
	ttl, _ := env.checkTTL(in.TTLMs)
	label := in.Label
	if label == "" {
		label = env.defaultLabel()
	}
	sel := in.Target
	if sel == "" {
		sel = in.TargetID
	}
	var tab driver.TabDriver
	opened := sel == ""
	if opened {
		// In the background, so other agents' active tab stays theirs.
		if tab, err = b.NewTab(ctx, &driver.TabOptions{Background: true, Scope: env.Scope}); err != nil {
			return nil, err
		}
	} else if tab, err = pickTab(ctx, env, b, sel); err != nil {
		// A selector matching no tab is an error, never a new tab.
		return nil, err
	}
	key, err := leaseTab(ctx, b, tab.ID())
	if err != nil {
		return nil, err
	}
	if opened {
		env.Leases.RecordOrigin(key, label)
	}
	rec, err := env.Leases.Claim(key, lease.Claim{Owner: env.owner(), Label: label, TTL: ttl})
	if err != nil {
		return nil, env.conflict(b, key, err)
	}
	return &Result{Data: claimed(ctx, tab, rec, opened)}, nil
}

func claimed(ctx context.Context, tab driver.TabDriver, rec *lease.Record, opened bool) claimResult {
	url := ""
	if loc, err := tab.Location(ctx); err == nil {
		url = loc.URL
	}
	return claimResult{Lease: rec.Token(), TargetID: rec.TargetID, URL: url, Label: rec.Label, TTLMs: rec.TTLMs, ExpiresAt: rec.ExpiresAt(), Opened: opened}
}

func (in *releasePageArgs) check(_ context.Context, env *Env) error {
	if err := env.needLeases(); err != nil {
		return err
	}
	if (in.Lease == "") == (in.Target == "") {
		return errorf(InvalidArgs, false, "give lease (the token) or target (for an auto lease)", "give exactly one of lease and target")
	}
	if in.Lease != "" {
		_, _, _, err := parseToken(in.Lease)
		return err
	}
	return nil
}

// noTab: a release by token needs no door; the token is the authority.
func (in *releasePageArgs) noTab() bool { return in.Lease != "" }

type releaseResult struct {
	Released bool   `json:"released"`
	TargetID string `json:"targetId"`
	Closed   bool   `json:"closed"`
	Note     string `json:"note,omitempty"`
}

func releasePage(ctx context.Context, env *Env, d *door, in releasePageArgs) (*Result, error) {
	var b driver.Driver
	var key lease.Tab
	var released bool
	var err error
	if d != nil {
		// By target, through the door: it admitted the call, so the tab is
		// free, or this owner's (an auto lease it may give back).
		b = d.b
		if key, err = leaseTab(ctx, b, d.tab.ID()); err != nil {
			return nil, err
		}
		rec, err := env.Leases.ReleaseOwned(key, env.owner())
		if err != nil {
			return nil, err
		}
		released = rec != nil
	} else {
		if b, err = env.Browsers.Driver(ctx); err != nil {
			return nil, err
		}
		backend, id, nonce, _ := parseToken(in.Lease)
		if key, err = leaseTab(ctx, b, id); err != nil {
			return nil, err
		}
		if backend != key.Backend {
			return nil, errorf(InvalidArgs, false, "this lease is for another browser backend", "lease is a %s lease", backend)
		}
		// A session gives back only leases on its own tabs: another
		// session's token names a tab it cannot see.
		if env.Scope != nil && isOpen(b, id) {
			if _, err := pickTab(ctx, env, b, id); err != nil {
				return nil, err
			}
		}
		if released, err = env.Leases.Release(key, nonce); err != nil {
			return nil, err
		}
	}
	res := releaseResult{Released: released, TargetID: key.TargetID}
	if !released {
		// The tab may be someone else's by now: a release that did not
		// happen closes nothing, whatever close says.
		res.Note = "no lease of yours was held on this tab (already released, reclaimed or expired); nothing was closed"
		return &Result{Data: res}, nil
	}
	origin, agentOpened := env.Leases.OriginOf(key)
	shouldClose := agentOpened && origin.Unreadable == ""
	if in.Close != nil {
		shouldClose = *in.Close
	}
	if !shouldClose {
		return &Result{Data: res}, nil
	}
	if d != nil {
		if err := d.tab.Close(ctx); err != nil {
			return nil, err
		}
		res.Closed = true
		return &Result{Data: res}, nil
	}
	there, err := closeLeased(ctx, b, env.Scope, key.TargetID)
	if err != nil {
		return nil, err
	}
	res.Closed = there
	if !there {
		res.Note = "the tab was already closed"
	}
	return &Result{Data: res}, nil
}

// leaseRow is a lease as list_leases shows it: never the nonce.
type leaseRow struct {
	TargetID   string `json:"targetId"`
	URL        string `json:"url,omitempty"`
	Label      string `json:"label"`
	PID        int    `json:"pid"`
	Client     string `json:"client,omitempty"`
	Auto       bool   `json:"auto,omitempty"`
	CreatedAt  int64  `json:"createdAt"`
	LastUsedAt int64  `json:"lastUsedAt"`
	TTLMs      int64  `json:"ttlMs"`
	ExpiresAt  int64  `json:"expiresAt"`
	Alive      bool   `json:"alive"`
	Stale      bool   `json:"stale"`
	Reason     string `json:"reason,omitempty"` // dead-pid, expired or target-gone
	Mine       bool   `json:"mine,omitempty"`   // held by the caller's owner
	Unreadable string `json:"unreadable,omitempty"`
}

func (in *listLeasesArgs) check(_ context.Context, env *Env) error { return env.needLeases() }

func listLeases(ctx context.Context, env *Env, _ listLeasesArgs) (*Result, error) {
	b, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, err
	}
	reaped := env.reap(ctx, b)
	key, err := leaseTab(ctx, b, "")
	if err != nil {
		return nil, err
	}
	rows, err := env.Leases.List(key.Backend, key.Browser)
	if err != nil {
		return nil, err
	}
	all, err := b.PagesNow(nil)
	if err != nil {
		return nil, err
	}
	seen, err := b.PagesNow(env.Scope)
	if err != nil {
		return nil, err
	}
	urls, visible := map[string]string{}, map[string]bool{}
	for _, p := range all {
		urls[p.ID] = p.URL
	}
	for _, p := range seen {
		visible[p.ID] = true
	}
	me := env.owner()
	out := []leaseRow{}
	for _, r := range rows {
		mine := r.Unreadable == "" && r.Owner == me
		// A session sees the leases on its own tabs, and its own.
		if env.Scope != nil && !visible[r.TargetID] && !mine {
			continue
		}
		row := leaseRow{TargetID: r.TargetID, URL: urls[r.TargetID], Unreadable: r.Unreadable}
		if r.Unreadable == "" {
			row.Label, row.PID, row.Client, row.Auto = r.Label, r.Owner.PID, r.Owner.Client, r.Auto
			row.CreatedAt, row.LastUsedAt, row.TTLMs, row.ExpiresAt = r.CreatedAt, r.LastUsedAt, r.TTLMs, r.ExpiresAt()
			row.Alive = r.Stale != lease.DeadOwner
			row.Stale = r.Stale != ""
			row.Reason = r.Stale
			row.Mine = mine
			if _, open := urls[r.TargetID]; !open && row.Reason == "" {
				row.Reason = lease.TargetGone
			}
		}
		out = append(out, row)
	}
	data := map[string]any{"leases": out}
	if len(reaped) > 0 {
		data["reaped"] = reaped
	}
	return &Result{Data: data}, nil
}

// reapedTab is a tab reap closed.
type reapedTab struct {
	TargetID string `json:"targetId"`
	Label    string `json:"label"`
	Reason   string `json:"reason"`
}

// reap closes, in strict mode, the tabs agents abandoned: a tab is closed
// only when its lease is readable and for this browser, stale because its
// owner died or it expired, the tab is still open, and the creation ledger
// says cdpkit opened it. A close that fails is left for the next read.
func (env *Env) reap(ctx context.Context, b driver.Driver) []reapedTab {
	if !env.RequireLease || env.Leases == nil {
		return nil
	}
	key, err := leaseTab(ctx, b, "")
	if err != nil {
		return nil
	}
	rows, err := env.Leases.List(key.Backend, key.Browser)
	if err != nil {
		return nil
	}
	pages, err := b.PagesIn(ctx, nil) // every tab, fresh: a close must not act on hearsay
	if err != nil {
		return nil
	}
	open := map[string]bool{}
	for _, p := range pages {
		open[p.ID] = true
	}
	origins, err := env.Leases.Origins(key.Backend, key.Browser)
	if err != nil {
		return nil
	}
	var reaped []reapedTab
	for _, r := range staleAgentTabs(rows, open, origins) {
		t := lease.Tab{Backend: key.Backend, Browser: key.Browser, TargetID: r.TargetID}
		if there, err := closeLeased(ctx, b, nil, r.TargetID); !there || err != nil {
			continue
		}
		env.Leases.Drop(t)
		reaped = append(reaped, reapedTab{TargetID: r.TargetID, Label: r.Label, Reason: r.Stale})
	}
	return reaped
}

// staleAgentTabs selects the leases reap closes the tabs of; see reap.
func staleAgentTabs(rows []lease.Row, open map[string]bool, origins map[string]lease.OriginRow) []lease.Row {
	var out []lease.Row
	for _, r := range rows {
		o, agent := origins[r.TargetID]
		if r.Unreadable != "" || (r.Stale != lease.DeadOwner && r.Stale != lease.Expired) ||
			!open[r.TargetID] || !agent || o.Unreadable != "" {
			continue
		}
		out = append(out, r)
	}
	return out
}

// isOpen reports whether b has a tab id, in any scope.
func isOpen(b driver.Driver, id string) bool {
	pages, err := b.PagesNow(nil)
	return err == nil && slices.ContainsFunc(pages, func(p driver.Page) bool { return p.ID == id })
}
