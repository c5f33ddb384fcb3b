package snapshot

import (
	"fmt"
	"slices"
	"strings"
)

// Changes is what differs between two snapshots of one tab. Lines are
// compared without indentation. An element line is matched by its ref, so
// a button whose label changed is one change, not a removal and an
// addition; text lines are matched by content.
type Changes struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Changed []string `json:"changed,omitempty"` // the new line of each changed element
	// Kept counts the elements present, by ref, in both snapshots. None
	// kept means a new document (refs never carry over), where listing
	// the old page's elements as removed only costs tokens.
	Kept int `json:"-"`
	// blurred are the lines of Changed whose only change is losing the
	// focused flag (see DropBlurred).
	blurred map[string]bool
}

// DropBlurred leaves out of Changed the elements whose only change is
// that they lost focus: after an action, the field it left says nothing
// the newly focused element does not.
func (c *Changes) DropBlurred() {
	if len(c.blurred) == 0 {
		return
	}
	c.Changed = slices.DeleteFunc(c.Changed, func(l string) bool { return c.blurred[l] })
	c.blurred = nil
}

// withoutFlag returns line without its state flag (a bare word outside
// quotes), and whether it had it.
func withoutFlag(line, flag string) (string, bool) {
	quoted := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && quoted:
			i++
		case line[i] == '"':
			quoted = !quoted
		case !quoted && line[i] == ' ' && strings.HasPrefix(line[i+1:], flag) &&
			(i+1+len(flag) == len(line) || line[i+1+len(flag)] == ' '):
			return line[:i] + line[i+1+len(flag):], true
		}
	}
	return line, false
}

// Empty reports whether nothing changed.
func (c *Changes) Empty() bool {
	return len(c.Added) == 0 && len(c.Removed) == 0 && len(c.Changed) == 0
}

// Diff compares the lines of two snapshots (Result.Lines).
func Diff(prev, cur []string) Changes {
	prevRef := make(map[string]string)
	prevText := make(map[string]int)
	for _, l := range prev {
		l = strings.TrimSpace(l)
		if r := refOf(l); r != "" {
			prevRef[r] = l
		} else {
			prevText[l]++
		}
	}
	var c Changes
	seen := make(map[string]bool)
	for _, l := range cur {
		l = strings.TrimSpace(l)
		if r := refOf(l); r != "" {
			seen[r] = true
			old, ok := prevRef[r]
			switch {
			case !ok:
				c.Added = append(c.Added, l)
			case old != l:
				c.Kept++
				c.Changed = append(c.Changed, l)
				if was, ok := withoutFlag(old, "focused"); ok && was == l {
					if c.blurred == nil {
						c.blurred = map[string]bool{}
					}
					c.blurred[l] = true
				}
			default:
				c.Kept++
			}
			continue
		}
		if prevText[l] > 0 {
			prevText[l]--
			continue
		}
		c.Added = append(c.Added, l)
	}
	for _, l := range prev {
		l = strings.TrimSpace(l)
		if r := refOf(l); r != "" {
			if !seen[r] {
				c.Removed = append(c.Removed, l)
			}
			continue
		}
		if prevText[l] > 0 {
			prevText[l]--
			c.Removed = append(c.Removed, l)
		}
	}
	return c
}

// refOf returns the ref a line starts with, such as "e12", or "", past
// the roles of folded wrappers ("listitem > e12 link …").
func refOf(l string) string {
	for {
		i := strings.Index(l, " > ")
		if i < 0 || strings.ContainsAny(l[:i], " \"") {
			break
		}
		l = l[i+3:]
	}
	if len(l) < 2 || l[0] != 'e' || l[1] < '0' || l[1] > '9' {
		return ""
	}
	i := 1
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i < len(l) && l[i] != ' ' {
		return ""
	}
	return l[:i]
}

// Text renders the changes as "+ line", "- line" and "~ line", cut at
// maxChars bytes with a count of what was left out. It returns "" when
// nothing changed.
func (c *Changes) Text(maxChars int) string {
	var lines []string
	for _, l := range c.Changed {
		lines = append(lines, "~ "+l)
	}
	for _, l := range c.Added {
		lines = append(lines, "+ "+l)
	}
	for _, l := range c.Removed {
		lines = append(lines, "- "+l)
	}
	var b strings.Builder
	for i, l := range lines {
		if maxChars > 0 && b.Len()+len(l)+1 > maxChars {
			fmt.Fprintf(&b, "… %d more changes\n", len(lines)-i)
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
