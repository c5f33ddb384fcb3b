package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// door is what the registry opened for a call of a Tab tool before its
// handler runs: the running browser and the tab the call's target names,
// in the call's scope, with its turn in the tab's queue taken.
type door struct {
	b   driver.Driver
	tab driver.TabDriver
}

// through is the one door from a tool to a tab. Driven by the tool's
// declaration, it starts the browser if needed, resolves target within
// env's scope (a lease argument without a target names the lease's tab),
// checks the tab's lease (see admitLease) before anything touches the
// tab, applies env's dialog policy, refuses a crashed tab unless
// the tool recovers it, waits the call's turn on the tab (see enterTab),
// applies the tool's dialog rule, notes the tab's state when the tool
// reports changes, runs the handler, and adds the changes section to its
// result.
func (t *Tool) through(ctx context.Context, env *Env, common commonArgs, run func(ctx context.Context, d *door) (*Result, error)) (*Result, error) {
	b, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, inPhase(PhaseResolve, err)
	}
	var token string
	if c := callFrom(ctx); c != nil {
		token = c.lease
	}
	selector := common.Target
	if selector == "" && token != "" {
		_, id, _, err := parseToken(token)
		if err != nil {
			return nil, inPhase(PhaseResolve, err)
		}
		selector = id
	}
	driver.Step(ctx, "resolving the target")
	tab, err := env.tabIn(ctx, b, selector)
	if err != nil {
		return nil, inPhase(PhaseResolve, err)
	}
	obsTarget(ctx, tab)
	if err := env.admitLease(ctx, b, tab, token); err != nil {
		return nil, inPhase(PhaseResolve, err)
	}
	tab.SetDialogPolicy(env.DialogPolicy)
	if err := tab.CheckCrashed(); err != nil && !t.Recovers {
		return nil, inPhase(PhaseResolve, err)
	}
	driver.Step(ctx, "")
	if err := enterTab(ctx, env, tab); err != nil {
		return nil, inPhase(PhaseQueue, err)
	}
	switch t.Dialog {
	case DialogBlocks:
		if err := tab.CheckDialog(); err != nil {
			return nil, inPhase(PhaseResolve, err)
		}
	case DialogClears:
		if tab.CheckDialog() == nil {
			return nil, inPhase(PhaseResolve, driver.ErrNoDialog)
		}
	}
	// A crashed tab has no page to observe; a tool that recovers it
	// reports no changes.
	var o *before
	if t.Changes != NoChanges && tab.CheckCrashed() == nil {
		if o, err = observe(ctx, b, tab, t.SaysWhere); err != nil {
			return nil, inPhase(PhaseSettle, err)
		}
	}
	res, err := run(ctx, &door{b: b, tab: tab})
	if err != nil || o == nil || res == nil {
		return res, inPhase(PhaseAction, err)
	}
	if t.SaysWhere {
		o.toolLocation(res.Data)
	}
	c, err := o.changesSince(ctx, common.IncludeSnapshot)
	if err != nil {
		if t.Changes == ReportChanges {
			return nil, inPhase(PhaseSettle, err)
		}
		env.Log.Debug("no changes section", "tool", t.Name, "err", err)
		return res, nil
	}
	if t.SaysWhere {
		c.URL, c.Title, c.Navigated = "", "", false
	}
	if err := putChanges(res.Data, c); err != nil {
		return nil, err
	}
	return res, nil
}

// putChanges fills the changes section of a result's data (see
// changesHolder). A tool that reports changes and returns data with no
// place for them is a cdpkit bug.
func putChanges(data any, c *Changes) error {
	h, ok := data.(changesHolder)
	if !ok {
		return fmt.Errorf("tools: result %T has no place for changes", data)
	}
	h.setChanges(c)
	return nil
}

// enterTab makes a call wait its turn on tab: a state-changing call takes
// the tab's slot (FIFO, bounded by env.QueueLimit) until it ends; a read
// only waits for a navigation in flight; a NoQueue tool goes at once.
func enterTab(ctx context.Context, env *Env, tab driver.TabDriver) error {
	c := callFrom(ctx)
	switch {
	case c == nil || c.tool.NoQueue || c.holds(tab):
		return nil
	case c.tool.ReadOnly:
		return tab.AwaitNavigation(ctx)
	}
	release, err := tab.Acquire(ctx, c.tool.Name, env.QueueLimit)
	if err != nil {
		return err
	}
	c.hold(tab, release)
	return nil
}

// pickTab resolves selector within env's scope without the lease check:
// for claim_page, whose claim is the lease check (it refuses a tab
// another live owner holds), and for release_page by token, to keep a
// session to its own tabs. Through the door, strict mode would acquire
// an auto lease on the way in and the explicit claim behind it would then
// meet it. It opens no tab: a selector matching nothing is an error.
func pickTab(ctx context.Context, env *Env, b driver.Driver, selector string) (driver.TabDriver, error) {
	return env.tabIn(ctx, b, selector)
}

// tabIn resolves a tab selector within env's scope, as the browser does,
// plus "pageId:N" or a bare "N": the tab whose pageId is N (no browser's
// tab id is a bare number).
func (env *Env) tabIn(ctx context.Context, b driver.Driver, selector string) (driver.TabDriver, error) {
	num, ok := strings.CutPrefix(selector, pageIDPrefix)
	if !ok && selector != "" && strings.Trim(selector, "0123456789") == "" {
		num, ok = selector, true
	}
	if !ok {
		return b.TabIn(ctx, env.Scope, selector)
	}
	want, err := strconv.Atoi(num)
	if err != nil || want < 1 {
		return nil, errorf(InvalidArgs, false, "pageId is a number from list_pages", "pageId %s is not a page number", num)
	}
	ids, err := env.pageIDs(b)
	if err != nil {
		return nil, err
	}
	for id, n := range ids {
		if n == want {
			tab, err := b.TabIn(ctx, env.Scope, id)
			if errors.Is(err, driver.ErrTargetNotFound) {
				break // closed since: said below as for any number
			}
			return tab, err
		}
	}
	open, err := b.PagesNow(env.Scope)
	if err != nil {
		return nil, err
	}
	return nil, &driver.TargetNotFoundError{Selector: selector, Open: len(open)}
}

// closeLeased closes the tab id names, within scope, for a lease just
// given back (release_page by token: the token was the authority) or
// reaped (its owner is gone or it expired). It reports whether the tab was
// there to close.
func closeLeased(ctx context.Context, b driver.Driver, scope *driver.Scope, id string) (bool, error) {
	tab, err := b.TabIn(ctx, scope, id)
	if err != nil {
		return false, nil
	}
	return true, tab.Close(ctx)
}
