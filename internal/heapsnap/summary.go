// Package heapsnap reads V8 heap snapshots (.heapsnapshot files, as Chrome
// DevTools saves them) in one streaming pass: memory grows with the number
// of distinct constructor names, never with the size of the heap.
package heapsnap

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ErrFormat means the input is not a heap snapshot in V8's layout.
var ErrFormat = errors.New("heapsnap: not a V8 heap snapshot")

// DefaultTop is how many constructors Summarize lists when top is 0.
const DefaultTop = 10

// Ranking says what Summary.Top is ordered by. Only shallow size is
// offered: a retained size needs the dominator tree of the whole graph in
// memory, which one streaming pass cannot give.
const Ranking = "self_size"

// Meta is the snapshot's self-description: the fields of each node and
// edge record, and the names of their types.
type Meta struct {
	NodeFields []string `json:"node_fields"`
	NodeTypes  []any    `json:"node_types"` // the first is the list of type names
	EdgeFields []string `json:"edge_fields"`
	EdgeTypes  []any    `json:"edge_types"`
}

// Header is the "snapshot" member of the file.
type Header struct {
	Meta      Meta `json:"meta"`
	NodeCount int  `json:"node_count"`
	EdgeCount int  `json:"edge_count"`
}

// Class is one constructor (or, for objects that have none, a system
// group such as "(string)" or "(compiled code)", named as DevTools names
// them) with its live instances and their total shallow size.
type Class struct {
	Name     string `json:"name"`
	Count    int    `json:"count"`
	SelfSize int64  `json:"selfSize"`
	// Internal marks the engine's own groups: those DevTools names in
	// parentheses ((object shape), (array), (compiled code)…), V8's
	// "system / …" objects and the renderer's C++ objects (blink::…).
	Internal bool `json:"internal,omitempty"`
}

// Summary is what one pass over a snapshot found.
type Summary struct {
	Nodes     int   // node records read; equals the header's node_count
	Edges     int   // edge records read; equals the header's edge_count
	SelfSize  int64 // the sum of every node's shallow size
	Top       []Class
	NodeTypes []string // the snapshot's node type names
}

// Summarize reads a heap snapshot from r and returns its node and edge
// counts (checked against its header) and the top classes by total
// shallow size, at most top of them (DefaultTop when top is 0): the
// page's own constructors first, largest first, then the engine's
// internal groups (Class.Internal), which would otherwise fill the list. It needs the members in V8's order: snapshot, then nodes, then
// strings. A malformed input is an error that wraps ErrFormat.
func Summarize(r io.Reader, top int) (*Summary, error) {
	if top <= 0 {
		top = DefaultTop
	}
	s := newScanner(r)
	var (
		hdr     *Header
		layout  nodeLayout
		sum     = &Summary{}
		byName  = map[int64]*agg{} // object and native nodes, by name string index
		byType  = map[int64]*agg{} // other nodes, by type
		edgeInt int
		want    map[int64]int // string index → position in sum.Top
		strIdx  int64
		doneStr bool
	)
	err := s.object(func(key string) error {
		switch key {
		case "snapshot":
			raw, err := s.raw(1 << 20)
			if err != nil {
				return err
			}
			hdr = &Header{}
			if err := json.Unmarshal(raw, hdr); err != nil {
				return fmt.Errorf("%w: snapshot header: %v", ErrFormat, err)
			}
			if layout, err = newLayout(&hdr.Meta); err != nil {
				return err
			}
			sum.NodeTypes = layout.types
		case "nodes":
			if hdr == nil {
				return fmt.Errorf("%w: nodes come before the snapshot header", ErrFormat)
			}
			rec := make([]int64, layout.width)
			i := 0
			err := s.ints(func(v int64) {
				rec[i] = v
				if i++; i < layout.width {
					return
				}
				i = 0
				sum.Nodes++
				sum.SelfSize += rec[layout.size]
				m, k := byType, rec[layout.typ]
				if layout.named(k) {
					m, k = byName, rec[layout.name]
				}
				a := m[k]
				if a == nil {
					a = &agg{}
					m[k] = a
				}
				a.count++
				a.self += rec[layout.size]
			})
			if err != nil {
				return err
			}
			if i != 0 {
				return fmt.Errorf("%w: the nodes array ends inside a record", ErrFormat)
			}
			// More than top: the names, read last, may show the largest
			// to be the engine's own, which make way for the page's.
			sum.Top, want = topClasses(byName, byType, layout, max(top*20, 200))
		case "edges":
			return s.ints(func(int64) { edgeInt++ })
		case "strings":
			if want == nil {
				return fmt.Errorf("%w: strings come before nodes", ErrFormat)
			}
			doneStr = true
			return s.array(func() error {
				defer func() { strIdx++ }()
				pos, ok := want[strIdx]
				if !ok {
					return s.skipString()
				}
				name, err := s.str()
				if err != nil {
					return err
				}
				sum.Top[pos].Name = name
				return nil
			})
		default:
			return s.skip()
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrFormat) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if hdr == nil || !doneStr {
		return nil, fmt.Errorf("%w: no snapshot header or no strings", ErrFormat)
	}
	if len(hdr.Meta.EdgeFields) > 0 {
		sum.Edges = edgeInt / len(hdr.Meta.EdgeFields)
	}
	if sum.Nodes != hdr.NodeCount {
		return nil, fmt.Errorf("%w: %d nodes, but the header says %d", ErrFormat, sum.Nodes, hdr.NodeCount)
	}
	if sum.Edges != hdr.EdgeCount {
		return nil, fmt.Errorf("%w: %d edges, but the header says %d", ErrFormat, sum.Edges, hdr.EdgeCount)
	}
	for i, c := range sum.Top {
		if c.Name == "" {
			sum.Top[i].Name = "(anonymous)"
		}
		sum.Top[i].Internal = internalName(sum.Top[i].Name)
	}
	// Groups of no size (V8's undefined, null, true and false) say
	// nothing about memory.
	sum.Top = slices.DeleteFunc(sum.Top, func(c Class) bool { return c.SelfSize == 0 })
	// Stable: each part stays ordered by size.
	slices.SortStableFunc(sum.Top, func(a, b Class) int {
		switch {
		case a.Internal == b.Internal:
			return 0
		case a.Internal:
			return 1
		}
		return -1
	})
	sum.Top = sum.Top[:min(top, len(sum.Top))]
	return sum, nil
}

// internalName reports whether a group's name is the engine's rather
// than a constructor of the page's.
func internalName(name string) bool {
	return strings.HasPrefix(name, "(") || strings.HasPrefix(name, "system / ") || strings.Contains(name, "::") ||
		name == "InternalNode"
}

type agg struct {
	count int
	self  int64
}

// nodeLayout says where the fields of a node record are.
type nodeLayout struct {
	width           int
	typ, name, size int
	types           []string
}

func newLayout(m *Meta) (nodeLayout, error) {
	l := nodeLayout{width: len(m.NodeFields), typ: -1, name: -1, size: -1}
	for i, f := range m.NodeFields {
		switch f {
		case "type":
			l.typ = i
		case "name":
			l.name = i
		case "self_size":
			l.size = i
		}
	}
	if l.typ < 0 || l.name < 0 || l.size < 0 {
		return l, fmt.Errorf("%w: node_fields %v lack type, name or self_size", ErrFormat, m.NodeFields)
	}
	if len(m.NodeTypes) == 0 {
		return l, fmt.Errorf("%w: no node_types", ErrFormat)
	}
	names, ok := m.NodeTypes[l.typ].([]any)
	if !ok {
		return l, fmt.Errorf("%w: node_types does not list the type names", ErrFormat)
	}
	for _, n := range names {
		s, _ := n.(string)
		l.types = append(l.types, s)
	}
	return l, nil
}

// named reports whether nodes of type t are grouped by their name (their
// constructor), as DevTools groups objects and native objects.
func (l nodeLayout) named(t int64) bool {
	if t < 0 || int(t) >= len(l.types) {
		return false
	}
	switch l.types[t] {
	case "object", "native":
		return true
	}
	return false
}

// className is DevTools' name for the group of nodes of type t that are
// not grouped by constructor.
func (l nodeLayout) className(t int64) string {
	if t < 0 || int(t) >= len(l.types) {
		return fmt.Sprintf("(type %d)", t)
	}
	switch l.types[t] {
	case "hidden":
		return "(system)"
	case "code":
		return "(compiled code)"
	}
	return "(" + l.types[t] + ")"
}

// topClasses ranks the groups and returns the top n, with the string
// indexes whose names are still to be read.
func topClasses(byName, byType map[int64]*agg, l nodeLayout, n int) ([]Class, map[int64]int) {
	type cand struct {
		named bool
		key   int64
		agg
	}
	var all []cand
	for k, a := range byName {
		all = append(all, cand{true, k, *a})
	}
	for k, a := range byType {
		all = append(all, cand{false, k, *a})
	}
	slices.SortFunc(all, func(a, b cand) int {
		if c := cmp.Compare(b.self, a.self); c != 0 {
			return c
		}
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	all = all[:min(n, len(all))]
	out := make([]Class, len(all))
	want := map[int64]int{}
	for i, c := range all {
		out[i] = Class{Count: c.count, SelfSize: c.self}
		if c.named {
			want[c.key] = i
		} else {
			out[i].Name = l.className(c.key)
		}
	}
	return out, want
}
