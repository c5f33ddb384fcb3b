package driver

import (
	"context"
	"time"
)

// ScreencastOptions are Page.startScreencast's knobs. The zero value
// streams JPEG frames at Chrome's default quality, at the viewport's size,
// on every repaint.
type ScreencastOptions struct {
	Format        string // "jpeg" (the default) or "png"
	Quality       int    // jpeg quality 0–100; 0 means Chrome's default
	MaxWidth      int    // 0 means the viewport's
	MaxHeight     int
	EveryNthFrame int // 0 or 1 means every repaint
}

// FrameSink receives a screencast's frames, one at a time and in order,
// on the screencast's goroutine. at is when the browser painted the frame.
// An error from Frame ends the screencast; its Err returns that error.
type FrameSink interface {
	Frame(data []byte, at time.Time) error
}

// ScreencastStream is a running screencast, as TabDriver returns it.
type ScreencastStream interface {
	Stop(ctx context.Context) error
	Done() <-chan struct{}
	Err() error
}
