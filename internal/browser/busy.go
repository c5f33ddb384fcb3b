package browser

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrBusy means a remote browser service (a websocket pool, a grid) is at
// capacity: it answered 429 Too Many Requests or 503 Service Unavailable.
var ErrBusy = errors.New("browser: the browser service is busy")

// BusyError is a remote browser service at capacity: it answered 429 or
// 503, with the wait its Retry-After asked for, or (a Selenium Grid) it
// queued the request until cdpkit stopped waiting.
type BusyError struct {
	Endpoint   string        // redacted
	Status     int           // 429 or 503; 0 when the request was queued
	RetryAfter time.Duration // 0 when the service did not say
	// Waited is how long cdpkit waited for a queued request before it
	// withdrew it; 0 when the service answered Status.
	Waited time.Duration
	// InUse and Slots are the Grid's busy and total slots when it was
	// asked after the wait; Slots is 0 when unknown.
	InUse, Slots int
}

func (e *BusyError) Error() string {
	if e.Status == 0 {
		s := "browser: " + e.Endpoint + " had no browser free after " + e.Waited.Round(100*time.Millisecond).String()
		if e.Slots > 0 {
			s += " (" + strconv.Itoa(e.InUse) + " of its " + strconv.Itoa(e.Slots) + " slots busy)"
		}
		return s
	}
	s := "browser: " + e.Endpoint + " is busy (" + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status) + ")"
	if e.RetryAfter > 0 {
		s += "; it asks to retry after " + e.RetryAfter.String()
	}
	return s
}

func (e *BusyError) Unwrap() error { return ErrBusy }

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
func waitBusy(ctx context.Context, be *BusyError, wait time.Duration) bool {
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
