package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/policy"
)

var tokenPattern = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{16,512}$`)

// loadTokenFile returns the token kept in path, creating the file (mode
// 0600, a random 128-bit token) when it does not exist, so that a host's
// registration survives restarts. It refuses a file others may read.
func loadTokenFile(path string) (string, error) {
	b, err := policy.ReadRegular(context.Background(), path, 4096)
	if errors.Is(err, fs.ErrNotExist) {
		raw := make([]byte, 16)
		rand.Read(raw)
		tok := hex.EncodeToString(raw)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		_, werr := f.WriteString(tok + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return "", fmt.Errorf("--token-file: %w", werr)
		}
		return tok, nil
	}
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("--token-file %s has mode %04o; others could read the token (chmod 600 it)", path, fi.Mode().Perm())
	}
	tok := strings.TrimSpace(string(b))
	if !tokenPattern.MatchString(tok) {
		return "", fmt.Errorf("--token-file %s does not hold a token (16-512 characters of A-Z a-z 0-9 . _ ~ + / = -)", path)
	}
	return tok, nil
}

// registration returns what registers cdpkit serve at url with token in
// host: a command for Claude Code, a JSON file for Cursor, a TOML table
// for Codex.
func registration(host, url, token string) (string, error) {
	header := "Bearer " + token
	switch host {
	case "claude":
		return fmt.Sprintf("claude mcp add --transport http cdpkit %s --header %s\n",
			url, shellQuote("Authorization: "+header)), nil
	case "cursor":
		cfg := map[string]any{"mcpServers": map[string]any{
			"cdpkit": map[string]any{"url": url, "headers": map[string]string{"Authorization": header}},
		}}
		b, err := json.MarshalIndent(cfg, "", "  ")
		return string(b) + "\n", err
	case "codex":
		return fmt.Sprintf("[mcp_servers.cdpkit]\nurl = %s\nhttp_headers = { Authorization = %s }\n",
			strconv.Quote(url), strconv.Quote(header)), nil
	}
	return "", fmt.Errorf("--print-config %q: want claude, cursor or codex", host)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
