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
<p style="clip-path:inset(100%);position:absolute">KEPT-SCREEN-READER-ONLY</p>
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
