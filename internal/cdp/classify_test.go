package cdp

import (
	"errors"
	"fmt"
	"testing"
)

func TestClassify(t *testing.T) {
	pe := func(msg string) error { return &ProtocolError{Method: "X.y", Code: -32000, Message: msg} }
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, KindOther},
		{"not a protocol error", errors.New("No dialog is showing"), KindOther},
		{"timeout", &TimeoutError{Method: "X.y"}, KindOther},
		{"unknown message", pe("Something else"), KindOther},
		{"no dialog", pe("No dialog is showing"), KindNoDialog},
		{"document swap", pe("Not attached to an active page"), KindNotAttached},
		{"node gone", pe("Could not find node with given id"), KindNodeGone},
		{"node id unknown", pe("No node with given id found"), KindNodeGone},
		{"selector", pe("DOM Error while querying"), KindBadSelector},
		{"not a function", pe("Given expression does not evaluate to a function"), KindNotAFunction},
		{"context destroyed", pe("Execution context was destroyed."), KindContextGone},
		{"context unknown", pe("Cannot find context with specified id"), KindContextGone},
		{"object gone", pe("Could not find object with given id"), KindContextGone},
		{"wrapped", fmt.Errorf("browser: reading: %w", pe("Promise was collected")), KindContextGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestIsProtocolError(t *testing.T) {
	if !IsProtocolError(fmt.Errorf("wrapped: %w", &ProtocolError{Message: "x"})) {
		t.Error("a wrapped *ProtocolError: false, want true")
	}
	for _, err := range []error{nil, &TimeoutError{}, &SessionClosedError{}, errors.New("x")} {
		if IsProtocolError(err) {
			t.Errorf("IsProtocolError(%v) = true, want false", err)
		}
	}
}
