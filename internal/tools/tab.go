package tools

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/browser"
)

// useTab starts the browser if needed and resolves a tab selector. It is the
// one door from a tool to a tab: ownership, queueing and crash checks
// belong here. It applies env's dialog policy to the tab but does not
// refuse while a dialog is open; see [pageTab].
func useTab(ctx context.Context, env *Env, target string) (*browser.Browser, *browser.Tab, error) {
	b, err := env.Browsers.Browser(ctx)
	if err != nil {
		return nil, nil, err
	}
	t, err := b.ResolveIn(ctx, env.Scope, target)
	if err != nil {
		return nil, nil, err
	}
	t.SetDialogPolicy(env.DialogPolicy)
	if err := t.CheckCrashed(); err != nil && !recovering(ctx) {
		return nil, nil, err
	}
	if err := enterTab(ctx, env, t); err != nil {
		return nil, nil, err
	}
	return b, t, nil
}

// enterTab makes a call wait its turn on tab: a state-changing call takes
// the tab's slot (FIFO, bounded by env.QueueLimit) until it ends; a read
// only waits for a navigation in flight; a NoQueue tool goes at once.
func enterTab(ctx context.Context, env *Env, tab *browser.Tab) error {
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

type recoveringKey struct{}

// mayRecover marks ctx as a call that works on a crashed tab: navigating
// it recovers it, and selecting or closing it needs no renderer.
func mayRecover(ctx context.Context) context.Context {
	return context.WithValue(ctx, recoveringKey{}, true)
}

func recovering(ctx context.Context) bool { return ctx.Value(recoveringKey{}) != nil }

// pageTab resolves target for page work, and fails with DIALOG_OPEN while
// a dialog waits for an answer, since the page can do nothing until then.
func pageTab(ctx context.Context, env *Env, target string) (*browser.Browser, *browser.Tab, error) {
	b, t, err := useTab(ctx, env, target)
	if err != nil {
		return nil, nil, err
	}
	if err := t.CheckDialog(); err != nil {
		return nil, nil, err
	}
	return b, t, nil
}

// resolveTab is [pageTab] for callers that need only the tab.
func resolveTab(ctx context.Context, env *Env, target string) (*browser.Tab, error) {
	_, t, err := pageTab(ctx, env, target)
	return t, err
}
