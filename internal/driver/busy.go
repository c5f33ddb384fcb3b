package driver

import (
	"errors"
	"net/http"
	"strconv"
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
