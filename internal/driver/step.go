package driver

import (
	"context"
	"sync/atomic"
)

// Steps records which step of a call is under way, so that a call that
// runs out of time can say what was slow ("reading the accessibility
// tree"). A call carries one in its context ([WithSteps]); browser
// operations name their main steps with [Step]. It is safe for concurrent
// use.
type Steps struct {
	cur atomic.Pointer[string]
	// watch, if set, learns each step as it is recorded (telemetry turns
	// steps into spans); it must be safe for concurrent use.
	watch atomic.Pointer[func(step string)]
}

// Watch makes f learn every step recorded from now on, "" included (the
// step ended). f must be quick and safe for concurrent use.
func (s *Steps) Watch(f func(step string)) { s.watch.Store(&f) }

type stepsKey struct{}

// WithSteps returns ctx carrying a new Steps.
func WithSteps(ctx context.Context) (context.Context, *Steps) {
	s := &Steps{}
	return context.WithValue(ctx, stepsKey{}, s), s
}

// Step records that the call ctx bounds is now doing what, such as
// "reading the accessibility tree". Without a Steps in ctx it does nothing.
func Step(ctx context.Context, what string) {
	if s, ok := ctx.Value(stepsKey{}).(*Steps); ok {
		s.cur.Store(&what)
		if f := s.watch.Load(); f != nil {
			(*f)(what)
		}
	}
}

// Current returns the step recorded last, or "".
func (s *Steps) Current() string {
	if p := s.cur.Load(); p != nil {
		return *p
	}
	return ""
}
