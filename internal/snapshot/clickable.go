package snapshot

import "strings"

// NameClickables gives every clickable node under root that has no
// accessible name (a generic <div> or <span> gets none) the text of its
// descendants, so that `clickable "Open the report"` says what it is in
// interactive snapshots and in find, where text lines are not printed.
func NameClickables(root *Node) {
	if root == nil {
		return
	}
	if root.Clickable && normalize(root.Name) == "" {
		root.Name = textOf(root, 4*maxText)
	}
	for _, c := range root.Children {
		NameClickables(c)
	}
}

// textOf joins the text under n, stopping past limit bytes.
func textOf(n *Node, limit int) string {
	var b strings.Builder
	var walk func(*Node)
	walk = func(x *Node) {
		for _, c := range x.Children {
			if b.Len() > limit {
				return
			}
			if c.isText() {
				b.WriteString(c.Name)
				b.WriteByte(' ')
				continue
			}
			if c.Role == "img" || c.Role == "image" {
				if c.Name != "" {
					b.WriteString(c.Name)
					b.WriteByte(' ')
				}
				continue
			}
			walk(c)
		}
	}
	walk(n)
	return tightPunct.Replace(normalize(b.String()))
}

// tightPunct removes the space that joining text nodes leaves before
// punctuation ("last seven days ." from "days" and ".").
var tightPunct = strings.NewReplacer(" .", ".", " ,", ",", " !", "!", " ?", "?", " :", ":", " ;", ";")
