package cdp

import (
	"errors"
	"strings"
)

// Kind names a class of Chromium error reply that callers act on. Chromium
// says which in English text only, which is not a stable API: Classify is
// the one place that reads it, so a wording change is one edit here.
type Kind int

const (
	// KindOther is any other error, or none.
	KindOther Kind = iota
	// KindNoDialog: handling a JavaScript dialog that has already closed.
	KindNoDialog
	// KindNotAttached: the tab is between documents while a navigation
	// swaps them (and often its renderer process).
	KindNotAttached
	// KindNodeGone: a node id no longer names a node, such as after the
	// document was read again.
	KindNodeGone
	// KindBadSelector: a CSS selector that does not parse.
	KindBadSelector
	// KindNotAFunction: a function declaration that is not a function.
	KindNotAFunction
	// KindContextGone: the JavaScript context of a call, or an object in
	// it, went away with its document.
	KindContextGone
)

// kindTexts maps parts of Chromium's messages to their Kind, first match
// wins.
var kindTexts = []struct {
	text string
	kind Kind
}{
	{"No dialog is showing", KindNoDialog},
	{"Not attached to an active page", KindNotAttached},
	{"Could not find node", KindNodeGone},
	{"No node with given id", KindNodeGone},
	{"DOM Error while querying", KindBadSelector},
	{"does not evaluate to a function", KindNotAFunction},
	{"Execution context was destroyed", KindContextGone},
	{"Inspected target navigated or closed", KindContextGone},
	{"Cannot find context with specified id", KindContextGone},
	{"Cannot find default execution context", KindContextGone},
	{"Promise was collected", KindContextGone},
	{"Could not find object with given id", KindContextGone},
}

// Kind classifies the reply by its message.
func (e *ProtocolError) Kind() Kind {
	for _, k := range kindTexts {
		if strings.Contains(e.Message, k.text) {
			return k.kind
		}
	}
	return KindOther
}

// Classify returns the Kind of the *ProtocolError in err's chain, or
// KindOther when there is none.
func Classify(err error) Kind {
	if pe, ok := errors.AsType[*ProtocolError](err); ok {
		return pe.Kind()
	}
	return KindOther
}

// IsProtocolError reports whether err's chain holds an error reply from the
// browser (a *ProtocolError), as opposed to a timeout or a lost connection.
func IsProtocolError(err error) bool {
	_, ok := errors.AsType[*ProtocolError](err)
	return ok
}
