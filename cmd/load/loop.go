package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/coreloop"
)

// steps are the loop's actions, in order, as the tables name them.
var steps = []string{"navigate", "snapshot", "fill", "click", "screenshot"}

// dialect is how one server spells the loop: its tool names and argument
// names, and how its snapshot writes an element's ref.
type dialect struct {
	navigate, snapshot, fill, click, screenshot string
	refArg, valueArg                            string
	describe                                    bool           // the action tools take a human "element" description
	screenshotArgs                              map[string]any // beyond the defaults
	ref                                         func(snapshot, role, name string) string
}

var cdpkitDialect = dialect{
	navigate: "navigate_page", snapshot: "take_snapshot", fill: "fill", click: "click", screenshot: "take_screenshot",
	ref: coreloop.Ref,
}

var playwrightDialect = dialect{
	navigate: "browser_navigate", snapshot: "browser_snapshot", fill: "browser_type", click: "browser_click",
	screenshot: "browser_take_screenshot", screenshotArgs: map[string]any{"type": "png"},
	ref: bracketRef,
}

// learn fills in the argument names from the server's tools/list: the ref
// argument (uid, ref or target), the text argument (value or text), and
// whether the actions take an element description.
func (d dialect) learn(ctx context.Context, cs *mcp.ClientSession) (dialect, error) {
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		return d, fmt.Errorf("tools/list: %w", err)
	}
	props := map[string]map[string]any{}
	for _, t := range tl.Tools {
		schema, _ := t.InputSchema.(map[string]any)
		p, _ := schema["properties"].(map[string]any)
		props[t.Name] = p
	}
	pick := func(tool string, names ...string) (string, error) {
		for _, n := range names {
			if _, ok := props[tool][n]; ok {
				return n, nil
			}
		}
		return "", fmt.Errorf("the server's %s takes none of %v", tool, names)
	}
	if d.refArg, err = pick(d.fill, "uid", "ref", "target"); err != nil {
		return d, err
	}
	if d.valueArg, err = pick(d.fill, "value", "text"); err != nil {
		return d, err
	}
	_, d.describe = props[d.click]["element"]
	return d, nil
}

// bracketRef finds Playwright's `textbox "Name" [ref=e5]`.
func bracketRef(snapshot, role, name string) string {
	needle := role + ` "` + name + `"`
	re := regexp.MustCompile(`\[ref=([^\]\s]+)\]`)
	for _, l := range strings.Split(snapshot, "\n") {
		if strings.Contains(l, needle) {
			if m := re.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// loop runs navigate → snapshot → fill → click → screenshot once on the
// form page (site's, told apart by id) and returns each step's latency as
// far as it got. callTimeout bounds each call.
func (d dialect) loop(ctx context.Context, cs *mcp.ClientSession, site, id string, callTimeout time.Duration) ([]time.Duration, error) {
	var took []time.Duration
	step := func(tool string, args map[string]any) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		start := time.Now()
		text, err := coreloop.Call(ctx, cs, tool, args)
		took = append(took, time.Since(start))
		return text, err
	}
	if _, err := step(d.navigate, map[string]any{"url": site + "/form?n=" + id}); err != nil {
		return took, err
	}
	snap, err := step(d.snapshot, map[string]any{})
	if err != nil {
		return took, err
	}
	box, button := d.ref(snap, "textbox", "Name"), d.ref(snap, "button", "Greet")
	if box == "" || button == "" {
		return took, fmt.Errorf("%s: no Name textbox or Greet button in:\n%s", d.snapshot, snap)
	}
	args := func(ref, what string) map[string]any {
		a := map[string]any{d.refArg: ref}
		if d.describe {
			a["element"] = what
		}
		return a
	}
	fill := args(box, "Name textbox")
	fill[d.valueArg] = "agent " + id
	if _, err := step(d.fill, fill); err != nil {
		return took, err
	}
	if _, err := step(d.click, args(button, "Greet button")); err != nil {
		return took, err
	}
	shot := map[string]any{}
	for k, v := range d.screenshotArgs {
		shot[k] = v
	}
	if _, err := step(d.screenshot, shot); err != nil {
		return took, err
	}
	return took, nil
}
