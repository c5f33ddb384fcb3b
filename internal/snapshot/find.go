package snapshot

import "strings"

// Match is one snapshot line that matched a search, with the nearest
// enclosing element line as context.
type Match struct {
	Line   string `json:"line"`
	Parent string `json:"parent,omitempty"`
}

// Find returns up to limit lines (as Format produced them) for which match
// is true, with their enclosing line (the nearest earlier line indented
// less), and how many matched in all.
func Find(lines []string, match func(string) bool, limit int) ([]Match, int) {
	var out []Match
	total := 0
	for i, l := range lines {
		text := strings.TrimSpace(l)
		if !match(text) {
			continue
		}
		total++
		if len(out) >= limit {
			continue
		}
		m := Match{Line: text}
		depth := indent(l)
		for j := i - 1; j >= 0 && depth > 0; j-- {
			if indent(lines[j]) < depth {
				m.Parent = strings.TrimSpace(lines[j])
				break
			}
		}
		out = append(out, m)
	}
	return out, total
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// InteractiveLines returns, unindented, the lines of a default-mode
// snapshot that interactive mode would print, so that a diff can compare
// an interactive snapshot against a default one.
func InteractiveLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if refOf(t) == "" {
			continue
		}
		f := strings.Fields(t)
		if len(f) > 1 && interactivePrinted[f[1]] {
			out = append(out, t)
		}
	}
	return out
}

// interactivePrinted are the printed roles of interactive nodes.
var interactivePrinted = func() map[string]bool {
	m := make(map[string]bool)
	for r := range interactiveRoles {
		m[(&Node{Role: r}).role()] = true
	}
	m[(&Node{Clickable: true}).role()] = true
	return m
}()
