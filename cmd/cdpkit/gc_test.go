package main

import "testing"

// TestShouldReturnHeap: the heap goes back only when the server allocated
// almost nothing since the last check and holds more than twice the live
// heap plus the slack.
func TestShouldReturnHeap(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name                  string
		allocated, held, live uint64
		want                  bool
	}{
		{"quiet after a burst", 100 << 10, 90 * mb, 7 * mb, true},
		{"busy after a burst", 20 * mb, 90 * mb, 7 * mb, false},
		{"quiet, within twice live plus slack", 0, 18 * mb, 7 * mb, false},
		{"quiet, just over", 0, 18*mb + 1, 7 * mb, true},
		{"quiet, big live heap", 0, 150 * mb, 80 * mb, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shouldReturnHeap(tc.allocated, tc.held, tc.live); got != tc.want {
				t.Errorf("shouldReturnHeap(%d, %d, %d) = %v, want %v", tc.allocated, tc.held, tc.live, got, tc.want)
			}
		})
	}
}
