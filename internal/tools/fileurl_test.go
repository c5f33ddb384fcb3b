package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browser"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// TestAllowFileURLs checks --allow-file-urls (issue #24 item 12): a file
// under an allowed directory loads; one outside it is URL_BLOCKED, whether
// asked for by the agent or framed by an allowed page (the guard judges
// every file: request); without the flag the refusal stands.
func TestAllowFileURLs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	site, secret := filepath.Join(root, "site"), filepath.Join(root, "secret")
	for _, d := range []string{site, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fileURL := func(p string) string { return "file://" + filepath.ToSlash(p) }
	write := func(p, body string) {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(secret, "key.html"), `<title>Secret</title><p>the secret key</p>`)
	write(filepath.Join(site, "index.html"), `<title>Local site</title><p>local page</p>`)
	write(filepath.Join(site, "frames.html"), fmt.Sprintf(`<title>Frames</title><p>outer</p><iframe src=%q></iframe>`,
		fileURL(filepath.Join(secret, "key.html"))))

	urls := &policy.Policy{FileDirs: []string{site}}
	// The guard lives in the browser: this test needs one with its policy.
	h := newHarness(t, &harnessOptions{Browser: &browser.Options{URLPolicy: urls}})
	h.env.URLPolicy = urls

	nav := h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, fileURL(filepath.Join(site, "index.html"))))
	if nav["title"] != "Local site" {
		t.Errorf("navigate_page to a file under the allowed dir: title %v, want Local site", nav["title"])
	}
	for _, tool := range []string{"navigate_page", "new_page"} {
		_, err := h.call(t, tool, fmt.Sprintf(`{"url":%q}`, fileURL(filepath.Join(secret, "key.html"))))
		wantCode(t, err, URLBlocked, "outside the --allow-file-urls")
		_, err = h.call(t, tool, fmt.Sprintf(`{"url":%q}`, fileURL(site)+"/../secret/key.html"))
		wantCode(t, err, URLBlocked, "outside the --allow-file-urls")
	}

	// An allowed page framing a file outside: the guard refuses the frame.
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, fileURL(filepath.Join(site, "frames.html"))))
	res, err := h.result(t, "take_snapshot", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "outer") || !strings.Contains(res.Text, "iframe") {
		t.Errorf("the allowed page and its frame are not in the snapshot:\n%s", res.Text)
	}
	if strings.Contains(res.Text, "secret key") {
		t.Errorf("the frame outside the allowed dir loaded:\n%s", res.Text)
	}

	// Without the flag, the refusal stands and names the flag.
	plain := newHarness(t, nil)
	_, err = plain.call(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, fileURL(filepath.Join(site, "index.html"))))
	if te := wantCode(t, err, URLBlocked, "file"); !strings.Contains(te.Hint, "--allow-file-urls") {
		t.Errorf("hint %q does not name --allow-file-urls", te.Hint)
	}
}
