package browser

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// busyStatus reports whether an HTTP status says "at capacity".
func busyStatus(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an
// HTTP-date. Anything else, or a time past, is 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, 86400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// busyBackoff is the wait before the first retry of a busy service that
// gave no Retry-After; it doubles up to reconnectMax.
const busyBackoff = 500 * time.Millisecond

// waitBusy waits before retrying a busy service: the Retry-After it
// asked for, else wait. It returns false at once, without waiting, when
// the retry could not start before ctx's deadline, and false when ctx
// ends meanwhile: the caller then returns the busy error while the call
// still has time to report it.
func waitBusy(ctx context.Context, be *driver.BusyError, wait time.Duration) bool {
	if be.RetryAfter > 0 {
		wait = be.RetryAfter
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
