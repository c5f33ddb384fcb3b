package tools

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestMockContentIsEvaluation checks that, with evaluation off, a mock
// cannot fulfill with content a browser would run (a document, a script,
// SVG, XML, or a body without a type it would sniff), while data mocks
// still work, and that a data mock cannot be run as a script.
func TestMockContentIsEvaluation(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>page</title><script src="/lib.js"></script><script>if (document.title == "page") document.title = "ok"</script>`)
	})
	site := browsertest.ServerHandler(t, mux).URL
	env := browserEnv(t) // evaluation off
	mustRun(t, env, "navigate_page", fmt.Sprintf(`{"url":%q}`, site+"/page"))

	refused := []string{
		`{"url":"*/a","body":"<script>fetch('/steal')</script>","headers":{"Content-Type":"text/html"}}`,
		`{"url":"*/a","body":"<script>1</script>","headers":{"content-type":"TEXT/HTML; charset=utf-8"}}`,
		`{"url":"*/a","body":"<script>1</script>"}`,
		`{"url":"*/a","body":"alert(1)","headers":{"Content-Type":"application/javascript"}}`,
		`{"url":"*/a","body":"alert(1)","headers":{"Content-Type":"text/javascript"}}`,
		`{"url":"*/a","body":"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>","headers":{"Content-Type":"image/svg+xml"}}`,
		`{"url":"*/a","body":"<html xmlns='http://www.w3.org/1999/xhtml'><script>1</script></html>","headers":{"Content-Type":"application/xhtml+xml"}}`,
		`{"url":"*/a","body":"<x/>","headers":{"Content-Type":"text/xml"}}`,
		`{"url":"*/a","body":"x","headers":{"Content-Type":"text/plain","content-type":"text/html"}}`,
		`{"url":"*/a","body":"x","headers":{"Content-Type":"not a type"}}`,
	}
	for _, args := range refused {
		t.Run(args, func(t *testing.T) {
			_, err := runTool(t, env, "mock_request", args)
			te := wantCode(t, err, EvalDisabled, "mock_request")
			if !strings.Contains(te.Hint, "--allow-eval") {
				t.Errorf("hint %q does not name --allow-eval", te.Hint)
			}
		})
	}
	for _, args := range []string{
		`{"url":"*/api","json":{"a":1}}`,
		`{"url":"*/t","body":"hello","headers":{"Content-Type":"text/plain; charset=utf-8"}}`,
		`{"url":"*/i","body":"GIF89a","headers":{"Content-Type":"image/gif"}}`,
		`{"url":"*/e","status":204}`,
		`{"url":"*/f","action":"fail"}`,
	} {
		mustRun(t, env, "mock_request", args)
	}

	// A data mock answering a script request is not run as a script.
	mustRun(t, env, "mock_request", `{"url":"*/lib.js","body":"document.title = 'ran'","headers":{"Content-Type":"text/plain"}}`)
	mustRun(t, env, "navigate_page", `{"type":"reload"}`)
	netEventually(t, "the page's own script to run", func() bool {
		title := fmt.Sprint(mustRun(t, env, "get_url", `{}`)["title"])
		if title == "ran" {
			t.Fatalf("the text/plain mock ran as a script")
		}
		return title == "ok"
	})
}

// TestMockHeaderControlChars checks that a header with a NUL, CR, LF or
// another control character, or a malformed name, is refused with a hint.
func TestMockHeaderControlChars(t *testing.T) {
	t.Parallel()
	env := browserEnv(t)
	mustRun(t, env, "navigate_page", `{"url":"about:blank"}`)
	for _, h := range []string{`{"X-A":"a\u0000b"}`, `{"X-A":"a\rb"}`, `{"X-A":"a\nSet-Cookie: x=1"}`, `{"X-A":"\u001b[31m"}`, `{"X\u0000A":"b"}`, `{"X A":"b"}`} {
		t.Run(h, func(t *testing.T) {
			_, err := runTool(t, env, "mock_request", `{"url":"*/a","json":1,"headers":`+h+`}`)
			te := wantCode(t, err, InvalidArgs, "header")
			if !strings.Contains(te.Hint, "control characters") {
				t.Errorf("hint %q does not say what a header may hold", te.Hint)
			}
		})
	}
	if lines := mustCall(t, env, "list_mocks", `{}`).Text; lines != "" {
		t.Errorf("a refused rule was armed: %q", lines)
	}
}
