package main

import (
	"strings"
	"testing"
)

// TestTour runs the tour and checks each step's line.
func TestTour(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	want := `navigate: Shop (200)
snapshot: 3 refs
click: a confirm asks "Empty the cart?"
confirm accepted: Cart is empty
upload: the page got receipt.pdf
hover: + e4 link "Orders"
scroll: at the bottom: true
cookie: cart=1
mock: Price: 1.00 (mocked)
trace: saved traces/…, CLS 0.00
`
	if got := out.String(); got != want {
		t.Errorf("the tour printed:\n%s\nwant:\n%s", got, want)
	}
}
