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
	return b, t, nil
}

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
