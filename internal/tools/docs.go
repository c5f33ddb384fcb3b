package tools

import (
	"fmt"
	"slices"
	"strings"
)

// MarkdownTable renders tools as the README's tool table: name, what it
// does, its annotations, and whether Firefox runs it (from the capability
// table). The README is checked against it by a test.
func MarkdownTable(tools []Tool) string {
	var b strings.Builder
	b.WriteString("| tool | what it does | | firefox |\n|---|---|---|---|\n")
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
		ff := "yes"
		if !Supports(BackendFirefox, t.Name) {
			var lacked []string
			for _, c := range Needs(t.Name) {
				if slices.Contains(Lacks(BackendFirefox), c) {
					lacked = append(lacked, "`"+string(c)+"`")
				}
			}
			ff = "no: needs " + strings.Join(lacked, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", t.Name, strings.ReplaceAll(t.Description, "|", `\|`), strings.Join(notes, ", "), ff)
	}
	return b.String()
}
