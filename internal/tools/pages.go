package tools

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/policy"
)

type listPagesArgs struct{}

type newPageArgs struct {
	URL string `json:"url,omitempty" jsonschema:"URL to open; about:blank when empty"`
}

type navigateArgs struct {
	URL    string `json:"url" jsonschema:"absolute http(s) URL, or about:blank"`
	Target string `json:"target,omitempty" jsonschema:"tab: active (default), index:N, url:SUBSTR, title:SUBSTR or a tab id"`
}

func pageTools() []Tool {
	return []Tool{
		define(Tool{
			Name:        "list_pages",
			Description: "List open tabs with id, index, url, title and which is active.",
			ReadOnly:    true,
			Idempotent:  true,
		}, listPages),
		define(Tool{
			Name:        "new_page",
			Description: "Open a new tab, make it active, and load url if given. Returns its id, final url, title and HTTP status.",
		}, newPage),
		define(Tool{
			Name:        "navigate_page",
			Description: "Load a URL in a tab and wait for the load event. Returns the final url after redirects, title and HTTP status.",
		}, navigatePage),
	}
}

func listPages(ctx context.Context, env *Env, _ listPagesArgs) (*Result, error) {
	b, err := env.Browsers.Browser(ctx)
	if err != nil {
		return nil, err
	}
	pages, err := b.Pages(ctx)
	if err != nil {
		return nil, err
	}
	if pages == nil {
		pages = []browser.Page{}
	}
	return &Result{Data: map[string]any{"pages": pages}}, nil
}

type pageResult struct {
	ID string `json:"id,omitempty"`
	*browser.NavResult
}

func newPage(ctx context.Context, env *Env, in newPageArgs) (*Result, error) {
	if in.URL != "" {
		if err := policy.CheckURL(in.URL); err != nil {
			return nil, err
		}
	}
	b, err := env.Browsers.Browser(ctx)
	if err != nil {
		return nil, err
	}
	tab, err := b.NewTab(ctx)
	if err != nil {
		return nil, err
	}
	nav := &browser.NavResult{URL: "about:blank"}
	if in.URL != "" && in.URL != "about:blank" {
		if nav, err = tab.Navigate(ctx, in.URL); err != nil {
			return nil, err
		}
	}
	return &Result{Data: pageResult{ID: string(tab.ID()), NavResult: nav}}, nil
}

func navigatePage(ctx context.Context, env *Env, in navigateArgs) (*Result, error) {
	if err := policy.CheckURL(in.URL); err != nil {
		return nil, err
	}
	tab, err := resolveTab(ctx, env, in.Target)
	if err != nil {
		return nil, err
	}
	nav, err := tab.Navigate(ctx, in.URL)
	if err != nil {
		return nil, err
	}
	return &Result{Data: nav}, nil
}
