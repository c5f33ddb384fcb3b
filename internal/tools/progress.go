package tools

import "context"

type progressKey struct{}

// WithProgress returns a context whose tool call reports its stages to
// report, with a short message safe to show the client ("loading the
// page"). report may be called from any goroutine and must not block long.
// Front-ends set it when the client asked for progress.
func WithProgress(ctx context.Context, report func(msg string)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// progress reports a stage of a long call, if the caller asked for
// progress.
func progress(ctx context.Context, msg string) {
	if report, ok := ctx.Value(progressKey{}).(func(string)); ok {
		report(msg)
	}
}
