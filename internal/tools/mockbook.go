package tools

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/browser"
)

// mockBook is the book of mock rules a browser keeps: list_mocks and
// clear_mocks read it, whichever backend runs.
type mockBook interface {
	Mocks(ctx context.Context, q browser.MockQuery) (rules, pruned []browser.Mock, err error)
	ClearMocks(ctx context.Context, q browser.MockQuery) ([]browser.Mock, error)
}

// mocksOf returns the running browser's mock book, starting the browser
// if needed: the driver's own, else Chromium's.
func mocksOf(ctx context.Context, env *Env) (mockBook, error) {
	d, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, err
	}
	if mb, ok := d.(mockBook); ok {
		return mb, nil
	}
	return env.Browsers.Browser(ctx)
}
