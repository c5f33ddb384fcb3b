package tools

import (
	"context"
	"regexp"
	"strings"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// maxFindLimit bounds the matches one find returns.
const maxFindLimit = 200

type findArgs struct {
	Target      string `json:"target,omitempty"`
	Query       string `json:"query" jsonschema:"text (case-insensitive), or RE2 with regex:true"`
	Regex       bool   `json:"regex,omitempty" jsonschema:"query is RE2"`
	Interactive bool   `json:"interactive,omitempty" jsonschema:"search only actionable elements"`
	Limit       int    `json:"limit,omitempty" jsonschema:"max matches (default 20)"`
}

func findTools() []Tool {
	return []Tool{
		define(Tool{
			Name:        "find",
			Description: "Search the snapshot for text, a role or a name: matching lines with refs and their enclosing element.",
			ReadOnly:    true,
			Idempotent:  true,
		}, find),
	}
}

func find(ctx context.Context, env *Env, in findArgs) (*Result, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, errorf(InvalidArgs, false, "give the text to look for", "query is empty")
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = 20
	case limit < 0 || limit > maxFindLimit:
		return nil, errorf(InvalidArgs, false, "use 1-200", "limit %d is out of range", limit)
	}
	match, err := matcher(in.Query, in.Regex)
	if err != nil {
		return nil, err
	}
	tab, err := resolveTab(ctx, env, in.Target)
	if err != nil {
		return nil, err
	}
	res, err := tab.Snapshot(ctx, browser.SnapshotOptions{Options: snapshot.Options{Interactive: in.Interactive}})
	if err != nil {
		return nil, err
	}
	matches, total := snapshot.Find(res.Lines, match, limit)
	var b strings.Builder
	for _, m := range matches {
		b.WriteString(m.Line)
		if m.Parent != "" {
			b.WriteString(" ← ")
			b.WriteString(m.Parent)
		}
		b.WriteByte('\n')
	}
	return &Result{
		Data: map[string]any{"query": in.Query, "matches": total, "returned": len(matches), "truncated": total > len(matches)},
		Text: b.String(),
	}, nil
}

// matcher returns a case-insensitive substring or RE2 match.
func matcher(query string, isRegex bool) (func(string) bool, error) {
	if !isRegex {
		q := strings.ToLower(query)
		return func(s string) bool { return strings.Contains(strings.ToLower(s), q) }, nil
	}
	re, err := regexp.Compile("(?i)" + query)
	if err != nil {
		return nil, errorf(InvalidArgs, false, "use RE2 syntax", "regex does not parse: %v", err)
	}
	return re.MatchString, nil
}
