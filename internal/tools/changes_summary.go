package tools

import (
	"fmt"
	"strings"

	"github.com/cdpkit/cdpkit/internal/snapshot"
)

// newDocSummaryChars bounds the elements part of the changes of an action
// that landed on a new document. Such a page is news as a whole, and
// listing all of it would cost the tokens of a snapshot the agent may not
// want: its first elements, a count of the rest and a hint do instead
// (includeSnapshot gives all of it).
const newDocSummaryChars = 240

// newDocumentSummary renders the elements of a new document: all of them
// when they fit in newDocSummaryChars, else the first ones that fit, the
// count of the rest by role, and a hint to take a snapshot.
func newDocumentSummary(diff snapshot.Changes) string {
	all := diff.Text(0)
	if len(all) <= newDocSummaryChars {
		return all
	}
	var b strings.Builder
	shown := 0
	for _, l := range diff.Added {
		if b.Len()+len(l)+3 > newDocSummaryChars {
			break
		}
		b.WriteString("+ " + l + "\n")
		shown++
	}
	rest := diff.Added[shown:]
	refs, roles := 0, map[string]int{}
	var order []string
	for _, l := range rest {
		f := strings.Fields(l)
		if len(f) < 2 || !changesIsRef(f[0]) {
			continue
		}
		refs++
		if roles[f[1]] == 0 {
			order = append(order, f[1])
		}
		roles[f[1]]++
	}
	var parts []string
	for i, r := range order {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%d %s", roles[r], r))
	}
	fmt.Fprintf(&b, "… %d more elements", refs)
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	b.WriteString("; take_snapshot for the page\n")
	return b.String()
}

// changesIsRef reports whether s is a ref such as e12.
func changesIsRef(s string) bool {
	if len(s) < 2 || s[0] != 'e' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
