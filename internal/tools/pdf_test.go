package tools

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestSavePDF prints a three-page fixture and checks the file with
// pdfinfo (poppler-utils, installed by scripts/install-deps.sh): every page,
// a page range, and the argument errors.
func TestSavePDF(t *testing.T) {
	t.Parallel()
	pdfinfo, err := exec.LookPath("pdfinfo")
	if err != nil {
		if os.Getenv("CDPKIT_REQUIRE_BROWSER") != "" {
			t.Fatal("pdfinfo not found: run scripts/install-deps.sh (Debian package poppler-utils)")
		}
		t.Skip("pdfinfo not found (Debian package poppler-utils)")
	}
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Three pages</title><style>section { break-after: page; }</style>
<section><h1>One</h1></section><section><h1>Two</h1></section><section><h1>Three</h1></section>`)
	}))
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL))

	pages := func(t *testing.T, path string) string {
		t.Helper()
		out, err := exec.Command(pdfinfo, path).CombinedOutput()
		if err != nil {
			t.Fatalf("pdfinfo %s: %v\n%s", path, err, out)
		}
		m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("pdfinfo gave no page count:\n%s", out)
		}
		return m[1]
	}
	all := h.mustCall(t, "save_pdf", `{}`)
	if got := pages(t, all["path"].(string)); got != "3" {
		t.Errorf("save_pdf printed %s pages, want 3", got)
	}
	if all["bytes"].(float64) <= 0 {
		t.Errorf("save_pdf bytes = %v", all["bytes"])
	}
	two := h.mustCall(t, "save_pdf", `{"filePath":"two.pdf","pageRanges":"2","landscape":true}`)
	if p := two["path"].(string); !strings.HasSuffix(p, "two.pdf") || pages(t, p) != "1" {
		t.Errorf("save_pdf pageRanges 2 = %v, want 1 page in two.pdf", two)
	}
	for _, tt := range []struct{ args, mention string }{
		{`{"filePath":"out.txt"}`, "out.txt"},
		{`{"pageRanges":"3-1"}`, "3-1"},
		{`{"filePath":"../out.pdf"}`, ""},
	} {
		_, err := h.call(t, "save_pdf", tt.args)
		if tt.mention == "" {
			if err == nil {
				t.Errorf("save_pdf %s: no error", tt.args)
			}
			continue
		}
		wantCode(t, err, InvalidArgs, tt.mention)
	}
}
