package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllowFileURLsFlag: `cdpkit mcp --allow-file-urls DIR` lets a page
// open a file under DIR and still refuses one outside it; without the flag
// every file: URL is refused (issue #40 item 13: the flag never reached
// the library's options, so every file: URL was refused).
func TestAllowFileURLsFlag(t *testing.T) {
	t.Parallel()
	allowed, other := t.TempDir(), t.TempDir()
	for dir, body := range map[string]string{allowed: "inside-the-allowed-dir", other: "outside-the-allowed-dir"} {
		if err := os.WriteFile(filepath.Join(dir, "page.html"), []byte("<title>f</title><p>"+body+"</p>"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fileURL := func(dir string) string {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "page.html"))}).String()
	}
	c := startMCP(t, "--allow-file-urls", allowed)
	if res := c.call(t, "navigate_page", map[string]any{"url": fileURL(allowed)}); res.IsError {
		t.Fatalf("navigate_page to a file under --allow-file-urls: %s", text(t, res))
	}
	if res := c.call(t, "get_text", nil); res.IsError || !strings.Contains(text(t, res), "inside-the-allowed-dir") {
		t.Errorf("get_text on the allowed file = %s", text(t, res))
	}
	if res := c.call(t, "navigate_page", map[string]any{"url": fileURL(other)}); !res.IsError || !strings.Contains(text(t, res), "outside") {
		t.Errorf("navigate_page to a file outside the allowed dir = %s, want refused", text(t, res))
	}
}
