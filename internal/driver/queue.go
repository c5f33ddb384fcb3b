package driver

import (
	"errors"
	"fmt"
)

// Queue bounds.
const (
	// DefaultQueueLimit is how many state-changing calls may wait for a
	// tab behind the one running.
	DefaultQueueLimit = 8
)

// ErrQueueFull means too many calls already wait for the tab.
var ErrQueueFull = errors.New("browser: too many calls wait for the tab")

// QueueFullError is [ErrQueueFull] with the limit.
type QueueFullError struct {
	Limit int // how many may wait
}

func (e *QueueFullError) Error() string {
	return fmt.Sprintf("browser: %d calls already wait for the tab", e.Limit)
}

func (e *QueueFullError) Unwrap() error { return ErrQueueFull }
