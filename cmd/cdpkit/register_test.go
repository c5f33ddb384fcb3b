package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "token")
	first, err := loadTokenFile(path)
	if err != nil || len(first) != 32 {
		t.Fatalf("first loadTokenFile = %q, %v; want a 32-hex token", first, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode = %v, %v; want 0600", fi.Mode(), err)
	}
	second, err := loadTokenFile(path)
	if err != nil || second != first {
		t.Errorf("second loadTokenFile = %q, %v; want the same token %q", second, err, first)
	}
	os.Chmod(path, 0o644)
	if _, err := loadTokenFile(path); err == nil {
		t.Error("a world-readable token file was accepted")
	}
}

func TestPrintConfig(t *testing.T) {
	const url, tok = "http://127.0.0.1:8765/mcp", "0123456789abcdef0123456789abcdef"
	claude, err := registration("claude", url, tok)
	if err != nil {
		t.Fatal(err)
	}
	args := shellWords(t, strings.TrimSpace(claude))
	want := []string{"claude", "mcp", "add", "--transport", "http", "cdpkit", url, "--header", "Authorization: Bearer " + tok}
	if strings.Join(args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("claude command parses to %q, want %q", args, want)
	}
	cursor, err := registration("cursor", url, tok)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(cursor), &c); err != nil || c.MCPServers["cdpkit"].URL != url ||
		c.MCPServers["cdpkit"].Headers["Authorization"] != "Bearer "+tok {
		t.Errorf("cursor config %s: %v", cursor, err)
	}
	codex, err := registration("codex", url, tok)
	if err != nil || !strings.Contains(codex, "[mcp_servers.cdpkit]\nurl = \""+url+"\"") || !strings.Contains(codex, "Bearer "+tok) {
		t.Errorf("codex config %q, %v", codex, err)
	}
	if _, err := registration("vim", url, tok); err == nil {
		t.Error("an unknown host was accepted")
	}
}

// shellWords splits a command line the way a POSIX shell does for the
// quoting registration uses: spaces separate, single quotes group.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	in, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			in, have = !in, true
		case r == ' ' && !in:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if in {
		t.Fatalf("unterminated quote in %q", s)
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}
