package driver

import (
	"errors"
	"fmt"
	"time"
)

// ErrRequestNotFound means no kept request has the asked id.
var ErrRequestNotFound = errors.New("browser: no such network request")

// ErrBodyGone means the browser no longer has a request's body: it was
// evicted, the request failed, or it had none.
var ErrBodyGone = errors.New("browser: the browser no longer has this body")

// RequestError names the request id that matched nothing kept.
type RequestError struct {
	ID   int
	Gone bool // the id was issued, but its request was dropped
}

func (e *RequestError) Error() string {
	if e.Gone {
		return fmt.Sprintf("browser: network request %d was dropped from the log", e.ID)
	}
	return fmt.Sprintf("browser: no network request %d", e.ID)
}

func (e *RequestError) Unwrap() error { return ErrRequestNotFound }

// Request is one network request of a tab, as its log keeps it.
type Request struct {
	// ID increases with each request and is never reused in the tab. A
	// redirect hop is a request of its own.
	ID int `json:"id"`
	// Nav numbers the tab's main-frame navigations; a request belongs to
	// the one under way when it was sent.
	Nav        int    `json:"nav"`
	Method     string `json:"method"`
	URL        string `json:"url"`
	Type       string `json:"type"` // resource type, lower case: document, script, fetch, xhr, …
	Status     int    `json:"status,omitempty"`
	StatusText string `json:"statusText,omitempty"`
	MIMEType   string `json:"mimeType,omitempty"`
	// Size is the bytes received, headers included, once finished.
	Size     int64         `json:"size,omitempty"`
	Duration time.Duration `json:"duration,omitempty"` // from sending to the last byte or the failure
	Failure  string        `json:"failure,omitempty"`  // the network error, such as net::ERR_FAILED
	Done     bool          `json:"done"`               // finished or failed
	Cached   bool          `json:"cached,omitempty"`
	// Frame is the frame that sent it; a worker's requests carry the
	// worker's target id.
	Frame string `json:"-"`
}

// RequestDetail is a request with its headers, timing and initiator.
type RequestDetail struct {
	Request
	RequestHeaders  map[string]string `json:"requestHeaders,omitempty"`
	ResponseHeaders map[string]string `json:"responseHeaders,omitempty"`
	// Timing holds the phases in ms, in order: blocked (queued, paused by
	// interception), dns, connect, ssl, send, wait (for the first byte),
	// receive; and total.
	Timing    map[string]float64 `json:"timing,omitempty"`
	Initiator string             `json:"initiator,omitempty"`
	HasBody   bool               `json:"hasPostData,omitempty"`
	RemoteIP  string             `json:"remoteAddress,omitempty"`
	Protocol  string             `json:"protocol,omitempty"`
}

// Bounds of a tab's request log, on every backend.
const (
	// DefaultNetworkBuffer is how many requests a tab keeps when
	// CDPKIT_NETWORK_BUFFER is unset; older ones are dropped.
	DefaultNetworkBuffer = 1000
	// NetworkNavigations is how many navigations' requests a tab keeps:
	// the current one and the ones before it.
	NetworkNavigations = 3
)
