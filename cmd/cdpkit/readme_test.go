package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestREADMEFlags checks that every flag of `cdpkit serve` and `cdpkit
// daemon` (which have all of mcp's) has a row in one of the README's flag
// tables, so --help and the README cannot drift apart.
func TestREADMEFlags(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"serve", "daemon"} {
		var help bytes.Buffer
		parseConfig(cmd, []string{"-h"}, &help)
		for line := range strings.Lines(help.String()) {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			name := strings.TrimPrefix(strings.Fields(line)[0], "-")
			if !bytes.Contains(readme, []byte("\n| `--"+name)) {
				t.Errorf("README has no flag table row for --%s (cdpkit %s)", name, cmd)
			}
		}
	}
}
