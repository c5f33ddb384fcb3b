package tools

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/driver"
)

type listDownloadsArgs struct{}

func downloadTools() []Tool {
	return []Tool{
		define(Tool{
			Name: "list_downloads",
			Description: "Files your tabs downloaded into the artifact dir's downloads/ (the last 200): name, path, bytes, state, " +
				"or why one was refused (over CDPKIT_DOWNLOAD_MAX, or past the session's 100 downloads or 1 GiB).",
			ReadOnly:   true,
			Idempotent: true,
		}, listDownloads),
	}
}

func listDownloads(ctx context.Context, env *Env, _ listDownloadsArgs) (*Result, error) {
	d, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, err
	}
	dl, err := role[driver.DownloadLog](env, d, "listing downloads")
	if err != nil {
		return nil, err
	}
	list := dl.Downloads(env.Scope)
	if list == nil {
		list = []driver.Download{}
	}
	return &Result{Data: struct {
		Downloads []driver.Download `json:"downloads"`
	}{list}}, nil
}
