package cdp

import (
	"log/slog"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// maxQueued bounds the events buffered for one subscriber that does not
// read. Past it the oldest are dropped, so a forgotten subscription costs
// bounded memory and never stalls the reader.
const maxQueued = 1 << 14

// Event is one CDP event, as delivered by [Session.SubscribeEvents].
type Event struct {
	Method string
	Params jsonv2.Value
}

// sink receives events from the reader. push must never block.
type sink interface {
	push(Event)
	finish()
	cancel()
}

// subscription buffers events between the reader, which must never block,
// and a subscriber that reads at its own pace. A pump goroutine moves events
// from the queue to out, converting each with conv.
type subscription[T any] struct {
	log  *slog.Logger
	name string
	conv func(Event) T
	out  chan T

	mu       sync.Mutex
	queue    []T           // guarded by mu
	finished bool          // guarded by mu; no more events will come
	dropped  int           // guarded by mu
	wake     chan struct{} // capacity 1
	stop     chan struct{} // closed by cancel
	stopOnce sync.Once
}

func newSubscription[T any](log *slog.Logger, name string, conv func(Event) T) *subscription[T] {
	s := &subscription[T]{
		log:  log,
		name: name,
		conv: conv,
		out:  make(chan T),
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
	}
	go s.pump()
	return s
}

// push queues an event. It never blocks.
func (s *subscription[T]) push(ev Event) {
	v := s.conv(ev)
	s.mu.Lock()
	if s.finished {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= maxQueued {
		var zero T
		s.queue[0] = zero
		s.queue = s.queue[1:]
		s.dropped++
		if s.dropped == 1 {
			s.log.Warn("cdp: subscriber is not reading; dropping oldest events", "events", s.name)
		}
	}
	s.queue = append(s.queue, v)
	s.mu.Unlock()
	s.signal()
}

// finish marks the end of the stream; queued events are still delivered.
func (s *subscription[T]) finish() {
	s.mu.Lock()
	s.finished = true
	s.mu.Unlock()
	s.signal()
}

func (s *subscription[T]) cancel() { s.stopOnce.Do(func() { close(s.stop) }) }

func (s *subscription[T]) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscription[T]) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			finished := s.finished
			s.mu.Unlock()
			if finished {
				return
			}
			select {
			case <-s.wake:
				continue
			case <-s.stop:
				return
			}
		}
		v := s.queue[0]
		var zero T
		s.queue[0] = zero
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- v:
		case <-s.stop:
			return
		}
	}
}
