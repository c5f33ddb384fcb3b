package firefox

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// refTable hands out "eN" refs per tab. A ref's identity is the node's
// key (refKey): its browsing context (the tab's or a frame's) and its BiDi
// shared id, which Firefox keeps for the node's life in its document:
// the same node gets the same ref in every snapshot. When a navigation
// starts, every ref issued so far is retired: using one is ErrRefStale,
// and numbers are never reused, so an old ref cannot name a new node
// (unless the navigation became a download and no ref was issued since:
// see restore). The owning Tab's mu guards it.
type refTable struct {
	byShared map[string]int // key → number, current document
	byNum    map[int]string // number → key, current document
	next     int            // the next number
	firstCur int            // numbers below it belong to retired documents
	// retired is the document's table the last retire dropped, kept
	// until a ref is issued, for restore.
	retired *refTable
}

func newRefTable() *refTable {
	return &refTable{byShared: make(map[string]int), byNum: make(map[int]string), next: 1, firstCur: 1}
}

func (r *refTable) ref(shared string) string {
	n, ok := r.byShared[shared]
	if !ok {
		n = r.next
		r.next++
		r.retired = nil
		r.byShared[shared] = n
		r.byNum[n] = shared
	}
	return "e" + strconv.Itoa(n)
}

func (r *refTable) retire() {
	r.retired = &refTable{byShared: r.byShared, byNum: r.byNum, next: r.next, firstCur: r.firstCur}
	r.byShared, r.byNum = make(map[string]int), make(map[int]string)
	r.firstCur = r.next
}

// restore undoes the last retire, when no ref was issued since: the
// navigation that retired them became a download, and the document
// stayed.
func (r *refTable) restore() {
	if p := r.retired; p != nil && p.next == r.next {
		r.byShared, r.byNum, r.firstCur = p.byShared, p.byNum, p.firstCur
	}
	r.retired = nil
}

// refKey is a node's key in a refTable.
func refKey(context, sharedID string) string { return context + " " + sharedID }

// lookup returns the key of ref.
func (r *refTable) lookup(ref string) (string, error) {
	num, err := strconv.Atoi(strings.TrimPrefix(ref, "e"))
	if !strings.HasPrefix(ref, "e") || err != nil || num <= 0 {
		return "", fmt.Errorf("%w: refs look like e12", driver.ErrInvalidArgument)
	}
	if s, ok := r.byNum[num]; ok {
		return s, nil
	}
	if num < r.next {
		return "", driver.ErrRefStale
	}
	return "", driver.ErrRefNotFound
}

// element returns the node a ref or, when ref is empty, a CSS selector
// names, as a BiDi shared reference.
func (t *Tab) element(ctx context.Context, ref, selector string) (*sharedRef, error) {
	if t.promptOpen() {
		return nil, &driver.DialogOpenError{Dialog: *t.DialogNote()}
	}
	if ref != "" {
		t.mu.Lock()
		s, err := t.refs.lookup(ref)
		t.mu.Unlock()
		if err != nil {
			return nil, &driver.ElementError{Ref: ref, Err: err}
		}
		context, shared, _ := strings.Cut(s, " ")
		return &sharedRef{SharedID: shared, Context: context}, nil
	}
	if selector == "" {
		return nil, fmt.Errorf("%w: give a ref or a selector", driver.ErrInvalidArgument)
	}
	rv, err := t.callRaw(ctx, `function(sel) {
		try { return document.querySelector(sel) || 'none'; } catch (e) { return 'invalid'; }
	}`, nil, []any{map[string]any{"type": "string", "value": selector}}, 0)
	if err != nil {
		return nil, t.wrap(err)
	}
	switch {
	case rv.Type == "node" && rv.SharedID != "":
		return &sharedRef{SharedID: rv.SharedID}, nil
	case strings.Contains(string(rv.Value), "invalid"):
		return nil, &driver.ElementError{Selector: selector, Err: driver.ErrInvalidArgument}
	}
	return nil, &driver.ElementError{Selector: selector, Err: driver.ErrElementNotFound}
}

// elementErr turns a node that no longer resolves into ErrRefStale.
func elementErr(ref, selector string, err error) error {
	if isNoNode(err) {
		if ref != "" {
			return &driver.ElementError{Ref: ref, Err: driver.ErrRefStale}
		}
		return &driver.ElementError{Selector: selector, Err: driver.ErrElementNotFound}
	}
	return err
}
