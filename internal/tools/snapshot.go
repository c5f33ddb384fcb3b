package tools

import (
	"context"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

type snapshotArgs struct {
	Target      string `json:"target,omitempty"`
	Interactive bool   `json:"interactive,omitempty" jsonschema:"actionable only"`
	Scope       string `json:"scope,omitempty" jsonschema:"subtree: ref or CSS selector"`
	Depth       int    `json:"depth,omitempty"`
	URLs        bool   `json:"urls,omitempty" jsonschema:"with link URLs"`
	MaxChars    int    `json:"maxChars,omitempty" jsonschema:"default 24000"`
	FilePath    string `json:"filePath,omitempty" jsonschema:"save whole here"`
	Diff        bool   `json:"diff,omitempty" jsonschema:"changes since the last"`
}

func snapshotTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "take_snapshot",
			Description: "The page as lines with refs (`e12 button \"Save\"`), valid while the document lives.",
			ReadOnly:    true,
			Core:        true,
			Verbs:       []Verb{{Name: "snapshot", Summary: "print the page with refs (-i: interactive elements only)", Rank: 2}},
		}, takeSnapshot),
	}
}

type snapshotHeader struct {
	URL       string `json:"url"`
	Title     string `json:"title"`
	Refs      int    `json:"refs"`
	Eval      bool   `json:"eval"` // evaluate_script is enabled
	Truncated bool   `json:"truncated,omitempty"`
	// Unchecked: see textHeader.
	Unchecked bool   `json:"hiddenCheckIncomplete,omitempty"`
	Hint      string `json:"hint,omitempty"`
	Path      string `json:"path,omitempty"`
	Added     *int   `json:"added,omitempty"`
	Removed   *int   `json:"removed,omitempty"`
	Changed   *int   `json:"changed,omitempty"`
}

func (in *snapshotArgs) check(_ context.Context, env *Env) error {
	if in.Depth < 0 || in.MaxChars < 0 {
		return errorf(InvalidArgs, false, "use 0 or more", "depth and maxChars must not be negative")
	}
	if in.FilePath != "" && in.Diff {
		return errorf(InvalidArgs, false, "use one of them", "filePath and diff do not go together")
	}
	if in.FilePath != "" {
		return env.Artifacts.Check(in.FilePath) // before the work whose result it would hold
	}
	return nil
}

func takeSnapshot(ctx context.Context, env *Env, d *door, in snapshotArgs) (*Result, error) {
	tab := d.tab
	o := driver.SnapshotOptions{
		Options: snapshot.Options{Interactive: in.Interactive, URLs: in.URLs, Depth: in.Depth, MaxChars: ceilChars(in.MaxChars)},
		Scope:   in.Scope,
	}
	// Where the tab is does not depend on the snapshot: ask at once.
	var loc driver.Location
	var locErr error
	located := make(chan struct{})
	go func() {
		defer close(located)
		loc, locErr = tab.Location(ctx)
	}()
	res, changes, err := tab.SnapshotDiff(ctx, o)
	<-located
	if err != nil {
		return nil, err
	}
	if locErr != nil {
		return nil, locErr
	}
	h := snapshotHeader{URL: loc.URL, Title: loc.Title, Refs: res.Refs, Eval: env.AllowEval, Truncated: res.Truncated, Unchecked: res.Unchecked}
	switch {
	case in.FilePath != "":
		path, err := env.Artifacts.WriteFile(in.FilePath, []byte(strings.Join(res.Lines, "\n")+"\n"))
		if err != nil {
			return nil, err
		}
		h.Path, h.Truncated = path, false
		return &Result{Data: h}, nil
	case in.Diff:
		a, r, c := len(changes.Added), len(changes.Removed), len(changes.Changed)
		h.Added, h.Removed, h.Changed = &a, &r, &c
		text := changes.Text(maxCharsOr(in.MaxChars))
		h.Truncated = strings.Contains(text, " more changes\n")
		return &Result{Data: h, Text: text}, nil
	}
	switch {
	case res.Unchecked:
		h.Hint = uncheckedNote
	case res.Truncated:
		h.Hint = "narrow with scope or interactive:true, or save it whole with filePath"
	}
	return &Result{Data: h, Text: res.Text}, nil
}

func maxCharsOr(n int) int {
	if n > 0 {
		return n
	}
	return snapshot.DefaultMaxChars
}
