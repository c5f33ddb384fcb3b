// Package cdptest provides a fake CDP session for unit tests of code that
// drives a browser: it records calls, answers them from scripted replies,
// fails the Nth call on demand, and lets the test emit events.
package cdptest

import (
	"context"
	"fmt"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// Call is one recorded command.
type Call struct {
	Method string
	Params jsonv2.Value // nil when the command had none
}

// Session is a fake that implements cdproto's cdp.Session and
// SubscribeEvents like *cdp.Session. It is safe for concurrent use.
type Session struct {
	mu      sync.Mutex
	calls   []Call                             // guarded by mu
	replies map[string]func(Call) (any, error) // guarded by mu
	failAt  map[int]error                      // guarded by mu; 1-based call number → error
	subs    []*fakeSub                         // guarded by mu
	OnCall  func(Call)                         // called after each call is recorded, outside mu
}

type fakeSub struct {
	methods map[string]bool
	ch      chan cdp.Event
}

// New returns an empty fake. Unscripted commands succeed with an empty
// result.
func New() *Session {
	return &Session{replies: make(map[string]func(Call) (any, error)), failAt: make(map[int]error)}
}

// Reply scripts the result of every call of method: a value marshaled as
// the result, or an error.
func (s *Session) Reply(method string, f func(Call) (any, error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies[method] = f
}

// FailCall makes the nth call (1-based, counting every method) fail with err.
func (s *Session) FailCall(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failAt[n] = err
}

// Calls returns the calls recorded so far.
func (s *Session) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Methods returns the methods of the calls recorded so far, in order.
func (s *Session) Methods() []string {
	var m []string
	for _, c := range s.Calls() {
		m = append(m, c.Method)
	}
	return m
}

// Call implements cdp.Session.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	c := Call{Method: method}
	if params != nil {
		b, err := jsonv2.Marshal(params)
		if err != nil {
			return err
		}
		c.Params = b
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	n := len(s.calls)
	failErr := s.failAt[n]
	reply := s.replies[method]
	hook := s.OnCall
	s.mu.Unlock()
	if hook != nil {
		hook(c)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if failErr != nil {
		return failErr
	}
	if reply == nil {
		return nil
	}
	v, err := reply(c)
	if err != nil {
		return err
	}
	if result == nil || v == nil {
		return nil
	}
	b, err := jsonv2.Marshal(v)
	if err != nil {
		return fmt.Errorf("cdptest: marshaling scripted result of %s: %w", method, err)
	}
	return jsonv2.Unmarshal(b, result)
}

// Subscribe implements cdp.Session.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	events, cancel := s.SubscribeEvents(method)
	out := make(chan jsonv2.Value)
	go func() {
		defer close(out)
		for ev := range events {
			out <- ev.Params
		}
	}()
	return out, cancel
}

// SubscribeEvents mirrors (*cdp.Session).SubscribeEvents.
func (s *Session) SubscribeEvents(methods ...string) (<-chan cdp.Event, func()) {
	sub := &fakeSub{methods: make(map[string]bool), ch: make(chan cdp.Event, 1024)}
	for _, m := range methods {
		sub.methods[m] = true
	}
	s.mu.Lock()
	s.subs = append(s.subs, sub)
	s.mu.Unlock()
	var once sync.Once
	return sub.ch, func() {
		once.Do(func() {
			s.mu.Lock()
			for i, x := range s.subs {
				if x == sub {
					s.subs = append(s.subs[:i], s.subs[i+1:]...)
					break
				}
			}
			s.mu.Unlock()
			close(sub.ch)
		})
	}
}

// Emit delivers an event to the current subscribers of method. params is
// marshaled to JSON. Emit does not block as long as each subscriber has
// fewer than 1024 unread events.
func (s *Session) Emit(method string, params any) {
	b, err := jsonv2.Marshal(params)
	if err != nil {
		panic(fmt.Sprintf("cdptest: marshaling %s: %v", method, err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.subs {
		if sub.methods[method] {
			sub.ch <- cdp.Event{Method: method, Params: b}
		}
	}
}
