package tools

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// hiddenPage holds one visible paragraph and text hidden from users in
// every common way; a page can hide instructions for an agent like this.
// KEPT- text stays on purpose: transparent controls (custom checkboxes,
// file inputs) and screen-reader-only labels are real parts of a page.
const hiddenPage = `<!doctype html><title>hidden</title>
<p>VISIBLE-TEXT</p>
<p style="display:none">HIDDEN-DISPLAY-NONE</p>
<p style="visibility:hidden">HIDDEN-VISIBILITY</p>
<p aria-hidden="true">HIDDEN-ARIA</p>
<p hidden>HIDDEN-ATTRIBUTE</p>
<p style="width:0;height:0;overflow:hidden">HIDDEN-ZERO-SIZE</p>
<p style="position:absolute;left:-10000px;top:0">HIDDEN-OFFSCREEN-LEFT</p>
<p style="position:absolute;top:-10000px">HIDDEN-OFFSCREEN-TOP</p>
<p style="opacity:0">KEPT-OPACITY</p>
<p style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap">KEPT-SCREEN-READER-ONLY</p>
<div style="display:none"><button>HIDDEN-BUTTON</button></div>
<template><p>HIDDEN-TEMPLATE</p></template>`

// TestHiddenContentIsNotRead checks that text a user cannot see is absent
// from the default snapshot and from get_text.
func TestHiddenContentIsNotRead(t *testing.T) {
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, hiddenPage)
	}))
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL))
	for _, call := range []struct{ tool, args string }{
		{"take_snapshot", `{}`},
		{"get_text", `{}`},
	} {
		res := h.mustCallText(t, call.tool, call.args)
		if !strings.Contains(res, "VISIBLE-TEXT") {
			t.Fatalf("%s does not show the visible text:\n%s", call.tool, res)
		}
		for _, line := range strings.Split(hiddenPage, "\n") {
			i := strings.Index(line, "HIDDEN-")
			if i < 0 {
				continue
			}
			word := line[i : i+strings.IndexByte(line[i:], '<')]
			if strings.Contains(res, word) {
				t.Errorf("%s shows %s", call.tool, word)
			}
		}
	}
}

// hiddenStructurePage hides text behind page structure and styles the
// filter once let through (issue 40 item 5): after 600 off-page decoys,
// outside <body>, in an open shadow root, in a same-origin iframe, and by
// transform, clip-path and font size.
func hiddenStructurePage(decoys int) string {
	return `<!doctype html><title>structure</title><p>VISIBLE-TEXT</p>
<div>` + strings.Repeat(`<p style="position:absolute;left:-10000px">decoy</p>`, decoys) + `</div>
<p style="position:absolute;left:-10000px">HIDDEN-AFTER-DECOYS</p>
<p style="transform:scale(0)">HIDDEN-SCALE</p>
<p style="clip-path:inset(100%)">HIDDEN-CLIP-INSET</p>
<p style="clip-path:circle(0)">HIDDEN-CLIP-CIRCLE</p>
<p style="font-size:0">HIDDEN-FONT-ZERO</p>
<div style="height:0;transform:translateX(1px)"><p>VISIBLE-IN-TRANSFORMED</p></div>
<div id="host"></div>
<iframe srcdoc="<p>VISIBLE-IN-FRAME</p><p style='position:absolute;left:-10000px'>HIDDEN-IN-FRAME</p>"></iframe>
<p>VISIBLE-LAST</p>
<script>
document.getElementById("host").attachShadow({mode: "open"}).innerHTML =
	'<p>VISIBLE-IN-SHADOW</p><p style="position:absolute;left:-10000px">HIDDEN-IN-SHADOW</p>';
const p = document.createElement("p");
p.style = "position:absolute;left:-10000px";
p.textContent = "HIDDEN-OUTSIDE-BODY";
document.documentElement.appendChild(p);
</script>`
}

// TestHiddenStructureIsNotRead checks issue 40 item 5: text hidden behind
// page structure is absent from the snapshot and from get_text, and past
// the filter's bound (2,000 hidden roots) what was not checked is left
// out and the answer says so.
func TestHiddenStructureIsNotRead(t *testing.T) {
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 600
		if r.URL.Path == "/many" {
			n = 2100
		}
		fmt.Fprint(w, hiddenStructurePage(n))
	}))
	t.Parallel()
	for _, c := range []struct {
		path      string
		unchecked bool
	}{{"/", false}, {"/many", true}} {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			h := newHarness(t, nil)
			h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL+c.path))
			for _, call := range []struct{ tool, args string }{
				{"take_snapshot", `{}`},
				{"get_text", `{}`},
			} {
				res := h.mustCallText(t, call.tool, call.args)
				if !strings.Contains(res, "VISIBLE-TEXT") {
					t.Errorf("%s does not show the visible text:\n%s", call.tool, res)
				}
				for _, w := range []string{"VISIBLE-LAST", "VISIBLE-IN-TRANSFORMED"} {
					if !c.unchecked && !strings.Contains(res, w) {
						t.Errorf("%s does not show %s:\n%s", call.tool, w, res)
					}
				}
				if call.tool == "take_snapshot" && !c.unchecked {
					for _, w := range []string{"VISIBLE-IN-SHADOW", "VISIBLE-IN-FRAME"} {
						if !strings.Contains(res, w) {
							t.Errorf("%s does not show %s:\n%s", call.tool, w, res)
						}
					}
				}
				for _, w := range []string{"HIDDEN-AFTER-DECOYS", "HIDDEN-SCALE", "HIDDEN-CLIP-INSET", "HIDDEN-CLIP-CIRCLE",
					"HIDDEN-FONT-ZERO", "HIDDEN-IN-SHADOW", "HIDDEN-IN-FRAME", "HIDDEN-OUTSIDE-BODY"} {
					if strings.Contains(res, w) {
						t.Errorf("%s shows %s", call.tool, w)
					}
				}
				if got := strings.Contains(res, `"hiddenCheckIncomplete":true`); got != c.unchecked {
					t.Errorf("%s: hiddenCheckIncomplete = %v, want %v:\n%.600s", call.tool, got, c.unchecked, res)
				}
			}
		})
	}
}

// mustCallText calls a tool and returns its data and text as one string.
func (h *harness) mustCallText(t *testing.T, name, args string) string {
	t.Helper()
	res, err := h.result(t, name, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	raw, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw) + "\n" + res.Text
}
