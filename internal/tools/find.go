package tools

import (
	"context"
	"regexp"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
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

	match func(string) bool // by check
}

func findTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "find",
			Description: "Search the snapshot for text, a role or a name: matching lines with refs and their enclosing element.",
			ReadOnly:    true,
			Idempotent:  true,
		}, find),
	}
}

func (in *findArgs) check(context.Context, *Env) error {
	if strings.TrimSpace(in.Query) == "" {
		return errorf(InvalidArgs, false, "give the text to look for", "query is empty")
	}
	switch {
	case in.Limit == 0:
		in.Limit = 20
	case in.Limit < 0 || in.Limit > maxFindLimit:
		return errorf(InvalidArgs, false, "use 1-200", "limit %d is out of range", in.Limit)
	}
	var err error
	in.match, err = matcher(in.Query, in.Regex)
	return err
}

func find(ctx context.Context, _ *Env, d *door, in findArgs) (*Result, error) {
	res, err := d.tab.Snapshot(ctx, driver.SnapshotOptions{Options: snapshot.Options{Interactive: in.Interactive}})
	if err != nil {
		return nil, err
	}
	matches, total := snapshot.Find(res.Lines, in.match, in.Limit)
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
