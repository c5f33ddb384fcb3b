package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestREADMEFlags checks that every flag of `cdpkit serve` and `cdpkit
// daemon` (which have all of mcp's) has a row in one of the flag tables of
// docs/flags.md and docs/cli.md (linked from the README), so --help and
// the docs cannot drift apart.
func TestREADMEFlags(t *testing.T) {
	t.Parallel()
	var readme []byte
	for _, doc := range []string{"../../docs/flags.md", "../../docs/cli.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, b...)
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
				t.Errorf("docs/flags.md (or docs/cli.md) has no flag table row for --%s (cdpkit %s)", name, cmd)
			}
		}
	}
}
