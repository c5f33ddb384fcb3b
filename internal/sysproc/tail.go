package sysproc

import (
	"strings"
	"sync"
)

// Tail keeps the last Max bytes written to it, such as a child process's
// stderr, for error messages. It is safe for concurrent use.
type Tail struct {
	Max int

	mu sync.Mutex
	b  []byte // guarded by mu
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.Max {
		t.b = t.b[len(t.b)-t.Max:]
	}
	return len(p), nil
}

// String returns what is kept, trimmed of surrounding white space.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
