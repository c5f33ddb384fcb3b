package tools

// One tool call: its deadline, its recovery from a handler's panic, the
// tab slots it holds until it ends, and the TIMEOUT that names the step it
// was in when its deadline passed.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Bounds of a tool call's deadline.
const (
	// DefaultTimeout bounds a tool call when Env.Timeout is zero.
	DefaultTimeout = 30 * time.Second
	// MaxTimeout is the most a call may ask for with timeout_ms, and caps
	// Env.Timeout.
	MaxTimeout = 120 * time.Second
)

// timeoutArg is the argument every tool accepts, outside its schema (the
// schemas would pay for it on every turn): the call's deadline in ms.
const timeoutArg = "timeout_ms"

// Call runs the tool with JSON arguments under the env's timeout, or the
// timeout_ms argument, which any tool accepts (0 < timeout_ms ≤
// MaxTimeout). State-changing calls on one tab wait for each other (see
// Tool.through); Call releases the tab when the handler returns. It never
// panics: a panic in a handler becomes an Internal error. The error, if
// any, is always an *Error; a TIMEOUT names the step that was slow.
func (t *Tool) Call(ctx context.Context, env *Env, args json.RawMessage) (res *Result, err error) {
	timeout := min(env.Timeout, MaxTimeout)
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	timeout = max(timeout, min(t.Timeout, MaxTimeout))
	args, err = t.compat(args)
	if err != nil {
		return nil, argsError(err)
	}
	args, asked, err := takeTimeout(args)
	if err != nil {
		return nil, argsError(err)
	}
	if asked > 0 {
		timeout = asked
	}
	var full bool
	if args, full, err = t.takeSnapshotArg(args); err != nil {
		return nil, argsError(err)
	}
	var token string
	if t.Tab && !t.ownLease {
		if args, token, err = takeLease(args); err != nil {
			return nil, argsError(err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, steps := driver.WithSteps(ctx)
	ctx, rec := env.obsStart(ctx, t, steps)
	defer func() { obsEnd(rec, args, res, err) }() // after the recover below
	c := &call{tool: t, lease: token, includeSnapshot: full}
	ctx = context.WithValue(ctx, callKey{}, c)
	defer c.end()
	defer func() {
		if p := recover(); p != nil {
			env.Log.Error("tool handler panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, errorf(Internal, false, "this is a cdpkit bug; please report it", "%s failed unexpectedly", t.Name)
		}
	}()
	defer env.Browsers.Use()() // an idle shutdown waits for the call
	start := time.Now()
	res, err = t.call(ctx, env, args)
	if err != nil {
		if isTimeout(err) || cutShort(ctx, err) {
			err = &stepTimeout{Tool: t.Name, After: time.Since(start), Step: steps.Current(), Tab: t.Tab, Err: err}
		}
		te := withPhase(AsError(err), err)
		env.Log.Debug("tool failed", "tool", t.Name, "code", te.Code, "phase", te.Phase, "ms", time.Since(start).Milliseconds(), "err", err)
		return nil, te
	}
	env.Log.Debug("tool done", "tool", t.Name, "ms", time.Since(start).Milliseconds())
	if res != nil {
		res.SessionReset = env.takeReset()
	}
	return res, nil
}

// takeTimeout removes timeout_ms from raw arguments and returns it; zero
// when absent.
func takeTimeout(raw json.RawMessage) (json.RawMessage, time.Duration, error) {
	if !bytes.Contains(raw, []byte(timeoutArg)) {
		return raw, 0, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, 0, nil // not an object: decoding says so
	}
	v, ok := m[timeoutArg]
	if !ok {
		return raw, 0, nil
	}
	bad := errorf(InvalidArgs, false, fmt.Sprintf("give timeout_ms in ms, above 0 and at most %d", MaxTimeout.Milliseconds()),
		"timeout_ms %s is out of range", v)
	var ms float64
	if err := json.Unmarshal(v, &ms); err != nil || ms <= 0 || ms > float64(MaxTimeout.Milliseconds()) {
		return nil, 0, bad
	}
	delete(m, timeoutArg)
	out, err := json.Marshal(m)
	if err != nil {
		return nil, 0, bad
	}
	return out, time.Duration(ms * float64(time.Millisecond)), nil
}

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
