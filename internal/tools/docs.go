package tools

import (
	"fmt"
	"strings"
)

// MarkdownTable renders tools as the README's tool table: name, what it
// does, and its annotations. The README is checked against it by a test.
func MarkdownTable(tools []Tool) string {
	var b strings.Builder
	b.WriteString("| tool | what it does | |\n|---|---|---|\n")
	for _, t := range tools {
		var notes []string
		if t.ReadOnly {
			notes = append(notes, "read-only")
		}
		if t.Destructive {
			notes = append(notes, "destructive")
		}
		if t.Idempotent {
			notes = append(notes, "idempotent")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", t.Name, strings.ReplaceAll(t.Description, "|", `\|`), strings.Join(notes, ", "))
	}
	return b.String()
}
