package webdriver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// ErrWithdrawn means the caller stopped waiting for a new session before
// the remote end created one, most often because a Grid queued the
// request while every slot was busy.
var ErrWithdrawn = errors.New("webdriver: no session before the deadline")

// WithdrawnError is ErrWithdrawn with how long the caller waited.
type WithdrawnError struct {
	Waited time.Duration
}

func (e *WithdrawnError) Error() string {
	return fmt.Sprintf("webdriver: no session after waiting %s", e.Waited.Round(100*time.Millisecond))
}

func (e *WithdrawnError) Unwrap() error { return ErrWithdrawn }

// A Grid keeps a queued session request after its client hangs up, and
// creates the session when a slot frees, for nobody: it would hold the
// slot and a browser until the Grid's own session timeout. So a request
// whose caller gave up is not cancelled. Its answer is awaited in the
// background, bounded by CreateTimeout, and a session that arrives is
// deleted at once; [Drain] waits for these at exit.
var withdrawals struct {
	mu  sync.Mutex
	set map[*withdrawal]struct{} // guarded by mu
}

type withdrawal struct {
	done   chan struct{} // closed once the answer is handled
	cancel context.CancelFunc
}

type answer struct {
	s   *Session
	err error
}

// withdraw takes over a request whose caller gave up: answers will carry
// its result; cancel ends it.
func (c *Client) withdraw(answers <-chan answer, cancel context.CancelFunc) {
	w := &withdrawal{done: make(chan struct{}), cancel: cancel}
	withdrawals.mu.Lock()
	if withdrawals.set == nil {
		withdrawals.set = make(map[*withdrawal]struct{})
	}
	withdrawals.set[w] = struct{}{}
	withdrawals.mu.Unlock()
	log := c.logger()
	go func() {
		defer func() {
			cancel()
			withdrawals.mu.Lock()
			delete(withdrawals.set, w)
			withdrawals.mu.Unlock()
			close(w.done)
		}()
		a := <-answers
		if a.s == nil {
			return
		}
		ctx, stop := context.WithTimeout(context.Background(), RequestTimeout)
		defer stop()
		if err := a.s.Delete(ctx); err != nil {
			log.Warn("deleting a WebDriver session that arrived after cdpkit stopped waiting for it", "url", policy.RedactEndpoint(c.base), "session", a.s.ID, "err", err)
			return
		}
		log.Info("deleted a WebDriver session that arrived after cdpkit stopped waiting for it", "url", policy.RedactEndpoint(c.base), "session", a.s.ID)
	}()
}

// Drain waits until every session request withdrawn so far is answered
// and the sessions they brought are deleted, or until ctx ends; then it
// cancels the requests left, so that the process can exit, and returns
// how many there were. A Grid may still create a session from a request
// cancelled in its queue: it carries [OwnerCapability], so the next
// cdpkit on this host deletes it ([Client.ReapOrphans]); otherwise the
// Grid's session timeout frees it.
func Drain(ctx context.Context) int {
	withdrawals.mu.Lock()
	ws := make([]*withdrawal, 0, len(withdrawals.set))
	for w := range withdrawals.set {
		ws = append(ws, w)
	}
	withdrawals.mu.Unlock()
	left := 0
	for _, w := range ws {
		select {
		case <-w.done:
			continue
		case <-ctx.Done():
		}
		left++
		w.cancel()
		<-w.done
	}
	return left
}

func (c *Client) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}
