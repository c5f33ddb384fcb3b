package tools

import (
	"context"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// defaultURLPolicy is used when Env.URLPolicy is nil.
var defaultURLPolicy = &policy.Policy{}

// checkURL fails fast with URL_BLOCKED on a URL the browser's guard would
// refuse anyway, so that the agent learns the rule rather than a failed load.
func (env *Env) checkURL(ctx context.Context, url string) error {
	p := env.URLPolicy
	if p == nil {
		p = defaultURLPolicy
	}
	return p.Check(ctx, url)
}

// maxTextChars is the most text get_text and take_snapshot return, whatever
// maxChars asks for: past it they cut and say truncated.
const maxTextChars = 1_000_000

func ceilChars(n int) int { return min(n, maxTextChars) }
