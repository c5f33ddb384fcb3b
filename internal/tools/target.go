package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// targetArgs name an element without a snapshot, by role and name or by
// visible text (byText: exact, else substring), and bound the wait for it
// to be actionable (waitMs, 0: DefaultActionWait). They are part of
// elementArgs; the tools' descriptions explain them once, which keeps the
// core profile's tools/list within its budget.
//
// byText was text, which Playwright MCP uses for what to type: text still
// works, as an alias left out of the schemas (declare drops it).
type targetArgs struct {
	Role   string `json:"role,omitempty"`
	Name   string `json:"name,omitempty"`
	ByText string `json:"byText,omitempty"`
	Text   string `json:"text,omitempty"` // byText's old name
	WaitMs int    `json:"waitMs,omitempty"`
}

// byTextAlias is the old name of byText, accepted but not in the schemas.
const byTextAlias = "text"

// maxWaitMs bounds waitMs; the call's own deadline bounds it too.
const maxWaitMs = 120_000

// semantic reports whether the element is named by role or text.
func (a *targetArgs) semantic() bool { return a.Role != "" || a.ByText != "" }

// wait is the action wait the call asked for.
func (a *targetArgs) wait() time.Duration {
	if a.WaitMs == 0 {
		return driver.DefaultActionWait
	}
	return time.Duration(a.WaitMs) * time.Millisecond
}

// checkTarget refuses an element given in no way or in several ways.
func (e *elementArgs) checkTarget() error {
	if e.Text != "" {
		if e.ByText != "" {
			return errorf(InvalidArgs, false, "give only byText", "text and byText say the same (text is byText's old name)")
		}
		e.ByText, e.Text = e.Text, ""
	}
	var given []string
	for _, w := range []struct {
		name string
		set  bool
	}{{"uid", e.UID != ""}, {"selector", e.Selector != ""}, {"role", e.Role != ""}, {"byText", e.ByText != ""}} {
		if w.set {
			given = append(given, w.name)
		}
	}
	switch {
	case len(given) == 0:
		return errorf(InvalidArgs, false, "take a snapshot and pass an element's ref as uid, or give role and name, or byText",
			"give uid or selector (or role with name, or byText)")
	case len(given) > 1:
		return errorf(InvalidArgs, false, "give one of uid, selector, role (with name) or byText",
			"%s do not go together", strings.Join(given, " and "))
	case e.Name != "" && e.Role == "":
		return errorf(InvalidArgs, false, `add the role, such as "button"`, "name goes with role")
	case e.WaitMs < 0 || e.WaitMs > maxWaitMs:
		return errorf(InvalidArgs, false, fmt.Sprintf("use 1-%d (0: the default)", maxWaitMs), "waitMs %d is out of range", e.WaitMs)
	}
	return nil
}

// prepare returns ctx carrying the call's action wait, with e.UID set to
// the ref of the element e names by role or text (see resolveTarget).
func (e *elementArgs) prepare(ctx context.Context, tab driver.TabDriver) (context.Context, error) {
	ctx = driver.WithActionWait(ctx, e.wait())
	if !e.semantic() {
		return ctx, nil
	}
	ref, err := resolveTarget(ctx, tab, e.targetArgs)
	if err != nil {
		return ctx, err
	}
	e.UID = ref
	return ctx, nil
}

// targetCandidate is one element of an interactive snapshot.
type targetCandidate struct {
	ref, role, name, line string
}

// maxAmbiguousListed bounds the candidates an AMBIGUOUS_TARGET lists.
const maxAmbiguousListed = 8

// targetSettle bounds one wait for the page to render between two looks
// for an element named by role or text.
const targetSettle = 200 * time.Millisecond

// resolveTarget finds the one element of the tab's interactive snapshot
// (which has clickable elements too) with role a.Role and name a.Name, or
// whose name is a.ByText: exact matches first, else case-insensitive
// substrings. It looks again after each rendered frame until the action
// wait is over while nothing matches. Several matches are AMBIGUOUS_TARGET
// listing their refs.
func resolveTarget(ctx context.Context, tab driver.TabDriver, a targetArgs) (string, error) {
	deadline := time.Now().Add(a.wait())
	for {
		res, err := tab.Snapshot(ctx, driver.SnapshotOptions{Options: snapshot.Options{Interactive: true}})
		if err != nil {
			return "", err
		}
		found := matchTarget(res.Lines, a)
		switch {
		case len(found) == 1:
			return found[0].ref, nil
		case len(found) > 1:
			return "", ambiguous(a, found)
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return "", errorf(ElementNotFound, true, "take a snapshot (interactive:true) and use a ref, or raise waitMs",
				"no element matches %s", describeTarget(a))
		}
		tab.Settle(ctx, min(time.Until(deadline), targetSettle))
	}
}

// matchTarget returns the candidates of lines that a names.
func matchTarget(lines []string, a targetArgs) []targetCandidate {
	var all []targetCandidate
	for _, l := range lines {
		if c, ok := parseTargetLine(l); ok {
			all = append(all, c)
		}
	}
	want, role := a.ByText, ""
	if a.Role != "" {
		want, role = a.Name, strings.ToLower(a.Role)
	}
	var exact, partial []targetCandidate
	lw := strings.ToLower(want)
	for _, c := range all {
		if role != "" && strings.ToLower(c.role) != role {
			continue
		}
		switch {
		case c.name == want:
			exact = append(exact, c)
		case want != "" && strings.Contains(strings.ToLower(c.name), lw):
			partial = append(partial, c)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return partial
}

// parseTargetLine reads `e12 button "Save" disabled` into its parts.
func parseTargetLine(l string) (targetCandidate, bool) {
	l = strings.TrimSpace(l)
	ref, rest, _ := strings.Cut(l, " ")
	if len(ref) < 2 || ref[0] != 'e' || strings.Trim(ref[1:], "0123456789") != "" {
		return targetCandidate{}, false
	}
	role, rest, _ := strings.Cut(rest, " ")
	c := targetCandidate{ref: ref, role: role, line: l}
	if strings.HasPrefix(rest, `"`) {
		var b strings.Builder
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
				b.WriteByte(rest[i])
				continue
			}
			if rest[i] == '"' {
				break
			}
			b.WriteByte(rest[i])
		}
		c.name = b.String()
	}
	return c, true
}

// describeTarget names what a asks for in a message.
func describeTarget(a targetArgs) string {
	if a.Role != "" {
		if a.Name == "" {
			return fmt.Sprintf("role %q", a.Role)
		}
		return fmt.Sprintf("role %q with name %q", a.Role, a.Name)
	}
	return fmt.Sprintf("text %q", a.ByText)
}

// ambiguous is the AMBIGUOUS_TARGET error listing the candidates.
func ambiguous(a targetArgs, found []targetCandidate) *Error {
	var lines []string
	for i, c := range found {
		if i == maxAmbiguousListed {
			lines = append(lines, fmt.Sprintf("and %d more", len(found)-i))
			break
		}
		lines = append(lines, c.line)
	}
	return errorf(AmbiguousTarget, true, "pass the ref of the one you mean as uid",
		"%d elements match %s: %s", len(found), describeTarget(a), strings.Join(lines, "; "))
}

// waitErrorRule maps an element that did not become actionable in time to
// the code of the condition that failed, saying how long it waited.
func waitErrorRule(_ error, we *driver.WaitError) *Error {
	inner := AsError(we.Err)
	e := *inner
	switch {
	case errors.Is(we.Err, driver.ErrElementDisabled):
		e.Code = ElementDisabled
	case errors.Is(we.Err, driver.ErrNotTypeable): // only a disabled field is waited for
		e.Code = ElementDisabled
	case errors.Is(we.Err, driver.ErrElementNotVisible):
		e.Code = ElementNotVisible
	}
	e.Message = fmt.Sprintf("%s (waited %v)", inner.Message, we.Waited.Round(time.Millisecond))
	e.Hint = inner.Hint + "; or raise waitMs if the page is slow"
	return &e
}

func init() {
	typed(waitErrorRule)
}

// actionArgs are the arguments every state-changing tool takes besides
// its own: the tab. (includeSnapshot, which asks for the whole snapshot
// instead of the changes, is taken outside the schemas: see
// snapshotArg.)
type actionArgs struct {
	Target string `json:"target,omitempty"`
}

// elementArgs name the element a tool acts on: a ref, or a selector.
type elementArgs struct {
	UID      string `json:"uid,omitempty" jsonschema:"ref (e12)"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector"`
	targetArgs
}
