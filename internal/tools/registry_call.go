package tools

// One tool call in flight: the tab slots it holds until it ends, and the
// TIMEOUT that names the step it was in when its deadline passed.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// isTimeout reports an error of a call that ran out of time, unless it
// already says what timed out.
func isTimeout(err error) bool {
	var te *Error
	var wte *driver.WaitTimeoutError
	if errors.As(err, &te) || errors.As(err, &wte) {
		return false
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrTimeout)
}

// cutShort reports whether err, which does not say it timed out, is still
// the work of the call's deadline: the call's time has run out and err
// tells nothing more (it would be INTERNAL). A command on a hung renderer
// that the deadline interrupts can fail in ways that do not name the
// deadline; the agent must see TIMEOUT, with its hint, either way.
func cutShort(ctx context.Context, err error) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) && AsError(err).Code == Internal
}

// stepTimeout is a call that ran out of time, with the step it was in.
type stepTimeout struct {
	Tool  string
	After time.Duration
	Step  string // "" when unknown
	Tab   bool   // the tool works on a tab, which may be hung
	Err   error
}

func (e *stepTimeout) Error() string { return e.message() + ": " + e.Err.Error() }
func (e *stepTimeout) Unwrap() error { return e.Err }

// message is the agent-facing text, such as "take_snapshot timed out after
// 2s while reading the accessibility tree".
func (e *stepTimeout) message() string {
	msg := fmt.Sprintf("%s timed out after %s", e.Tool, e.After.Round(100*time.Millisecond))
	if e.Step != "" {
		msg += " while " + e.Step
	}
	return msg
}

// call is one tool call's state, carried in its context for the door.
type call struct {
	tool            *Tool
	lease           string // the lease argument, for the door
	includeSnapshot bool   // the snapshotArg argument

	mu   sync.Mutex
	held map[driver.TabDriver]func() // guarded by mu; the tabs whose slot it holds, and their release
}

type callKey struct{}

// callFrom returns the call ctx belongs to, or nil outside Tool.Call.
func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// hold records that the call holds tab's slot until it ends.
func (c *call) hold(tab driver.TabDriver, release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = make(map[driver.TabDriver]func())
	}
	c.held[tab] = release
}

// holds reports whether the call holds tab's slot.
func (c *call) holds(tab driver.TabDriver) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.held[tab]
	return ok
}

// end releases the slots the call holds.
func (c *call) end() {
	c.mu.Lock()
	held := c.held
	c.held = nil
	c.mu.Unlock()
	for _, release := range held {
		release()
	}
}
