package mcpserver

import (
	"sync"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// Pool is the browsers HTTP sessions are placed on: each its own
// environment (its own driver.Manager, so its own browser process, or
// connection to a remote one). A new session goes to the browser with the
// fewest sessions open, the first such on a tie. A browser that dies takes
// down only the sessions placed on it: the Manager of each member
// restarts its own browser, and only the scopes that had used it report
// sessionReset.
//
// A Pool is safe for concurrent use.
type Pool struct {
	envs []*tools.Env

	mu   sync.Mutex
	load []int // guarded by mu; sessions placed on envs[i] and not yet ended
}

// NewPool returns a pool of envs; it needs at least one. The caller keeps
// owning the envs (and closes their browsers).
func NewPool(envs ...*tools.Env) *Pool {
	if len(envs) == 0 {
		panic("mcpserver: NewPool needs an environment")
	}
	return &Pool{envs: envs, load: make([]int, len(envs))}
}

// place picks the least-loaded member for a new session and counts the
// session on it until done is called (once).
func (p *Pool) place() (i int, done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for j, n := range p.load {
		if n < p.load[i] {
			i = j
		}
	}
	p.load[i]++
	var once sync.Once
	return i, func() {
		once.Do(func() {
			p.mu.Lock()
			p.load[i]--
			p.mu.Unlock()
		})
	}
}

// Loads returns how many sessions each member carries, in the order of
// NewPool's envs.
func (p *Pool) Loads() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.load...)
}
