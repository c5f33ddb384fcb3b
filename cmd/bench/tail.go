package main

import (
	"strings"
	"sync"
)

// tail keeps the last max bytes written to it, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte // guarded by mu
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
