package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestBusyError checks that a remote browser service at capacity is the
// recoverable BROWSER_BUSY, with its Retry-After in the hint when it gave
// one.
func TestBusyError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err      error
		wantHint string
	}{
		{fmt.Errorf("attach: %w", &driver.BusyError{Endpoint: "wss://pool/?token=<redacted>", Status: 429, RetryAfter: 7 * time.Second}), "retry after 7s (Retry-After)"},
		{&driver.BusyError{Endpoint: "http://grid:4444", Status: 503}, "retry later"},
	} {
		got := AsError(tc.err)
		if got.Code != BrowserBusy || !got.Recoverable || !strings.Contains(got.Hint, tc.wantHint) {
			t.Errorf("AsError(%v) = %+v, want recoverable %s with %q in the hint", tc.err, got, BrowserBusy, tc.wantHint)
		}
	}
}
