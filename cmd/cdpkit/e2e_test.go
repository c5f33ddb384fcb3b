package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/fixtures"
)

// actionResult is the part of a state-changing tool's result this test
// reads.
type actionResult struct {
	Changes struct {
		URL       string `json:"url"`
		Navigated bool   `json:"navigated"`
		Elements  string `json:"elements"`
	} `json:"changes"`
}

// refFor finds the ref of the line matching role and name in snapshot or
// changes text, e.g. `e12 button "Save"` or `+ e12 button "Save"`.
func refFor(t *testing.T, text, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^[+~ ]*\s*(e\d+) ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s %q in:\n%s", role, name, text)
	}
	return m[1]
}

// act runs a state-changing tool and returns its changes.
func (c *child) act(t *testing.T, tool string, args map[string]any) actionResult {
	t.Helper()
	res := c.call(t, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v): %s", tool, args, text(t, res))
	}
	// Programs read the structured content, where changes.elements is a
	// list of lines.
	var r struct {
		Changes struct {
			URL       string   `json:"url"`
			Navigated bool     `json:"navigated"`
			Elements  []string `json:"elements"`
		} `json:"changes"`
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(raw, &r)
	}
	if err != nil {
		t.Fatalf("%s: decoding %s: %v", tool, raw, err)
	}
	var out actionResult
	out.Changes.URL, out.Changes.Navigated = r.Changes.URL, r.Changes.Navigated
	out.Changes.Elements = strings.Join(r.Changes.Elements, "\n")
	return out
}

// TestMultiStepApp drives a small app (login → list → edit → save) using
// only refs from one snapshot and from each action's changes section, as an
// agent would, then checks the final state.
func TestMultiStepApp(t *testing.T) {
	t.Parallel()
	srv := browsertest.Server(t, fixtures.Pages())
	c := startMCP(t)

	c.act(t, "navigate_page", map[string]any{"url": srv.URL + "/app.html"})
	snap := text(t, c.call(t, "take_snapshot", map[string]any{"interactive": true}))

	c.act(t, "fill", map[string]any{"uid": refFor(t, snap, "textbox", "Username"), "value": "ada"})
	c.act(t, "fill", map[string]any{"uid": refFor(t, snap, "textbox", "Password"), "value": "lovelace"})
	login := c.act(t, "click", map[string]any{"uid": refFor(t, snap, "button", "Sign in")})
	if !strings.HasSuffix(login.Changes.URL, "#/list") {
		t.Fatalf("after sign-in the url is %q, want …#/list; changes: %+v", login.Changes.URL, login.Changes)
	}

	edit := c.act(t, "click", map[string]any{"uid": refFor(t, login.Changes.Elements, "button", "Edit Bucket")})
	if !strings.HasSuffix(edit.Changes.URL, "#/edit/2") {
		t.Fatalf("after Edit the url is %q, want …#/edit/2", edit.Changes.URL)
	}
	c.act(t, "fill", map[string]any{"uid": refFor(t, edit.Changes.Elements, "textbox", "Name"), "value": "Bucket XL"})
	saved := c.act(t, "click", map[string]any{"uid": refFor(t, edit.Changes.Elements, "button", "Save")})
	if !strings.HasSuffix(saved.Changes.URL, "#/list") {
		t.Fatalf("after Save the url is %q, want …#/list", saved.Changes.URL)
	}

	res := c.call(t, "get_text", nil)
	got := text(t, res)
	for _, want := range []string{"Saved Bucket XL", "Bucket XL (12)", "Items for ada"} {
		if !strings.Contains(got, want) {
			t.Errorf("final page text lacks %q:\n%s", want, got)
		}
	}
}
