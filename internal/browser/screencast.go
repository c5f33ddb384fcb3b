package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// ackWait bounds one Page.screencastFrameAck. The ack is sent on its own,
// not within any call's deadline: the stream outlives the call that
// started it.
const ackWait = 5 * time.Second

// ErrScreencastEnded means a screencast ended by itself: its tab closed
// or its browser went away. A crash ends it with ErrTargetCrashed.
var ErrScreencastEnded = errors.New("browser: the tab's screencast ended")

var _ driver.ScreencastStream = (*Screencast)(nil)

// Screencast is a tab's running Page.startScreencast. Each frame is
// acknowledged as soon as it arrives, before the sink sees it, since the
// browser sends no further frame until it is. It is safe for concurrent
// use.
type Screencast struct {
	tab    *Tab
	sess   *cdp.Session
	sink   driver.FrameSink
	events <-chan cdp.Event
	unsub  func()
	stop   chan struct{} // closed by Stop
	done   chan struct{} // closed when the goroutine has ended
	acks   sync.WaitGroup

	once sync.Once
	mu   sync.Mutex
	err  error // guarded by mu; why it ended by itself, nil if stopped
}

// Screencast starts streaming the tab's repaints to sink. It runs
// until Stop, until the tab closes or crashes, or until sink fails; ctx
// bounds only the start. A tab has at most one screencast: a second start
// replaces the first in the browser, so callers keep one per tab.
func (t *Tab) Screencast(ctx context.Context, o driver.ScreencastOptions, sink driver.FrameSink) (*Screencast, error) {
	p := page.StartScreencastParams{Format: page.StartScreencastFormatJpeg}
	switch o.Format {
	case "", "jpeg":
		if o.Quality != 0 {
			q := int64(o.Quality)
			p.Quality = &q
		}
	case "png":
		p.Format = page.StartScreencastFormatPng
	default:
		return nil, fmt.Errorf("%w: screencast format %q", driver.ErrInvalidArgument, o.Format)
	}
	if o.Quality < 0 || o.Quality > 100 || o.MaxWidth < 0 || o.MaxHeight < 0 || o.EveryNthFrame < 0 {
		return nil, fmt.Errorf("%w: screencast options out of range", driver.ErrInvalidArgument)
	}
	p.MaxWidth, p.MaxHeight, p.EveryNthFrame = int64(o.MaxWidth), int64(o.MaxHeight), int64(max(1, o.EveryNthFrame))
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	events, unsub := s.SubscribeEvents("Page.screencastFrame", "Inspector.targetCrashed", "Inspector.detached")
	sc := &Screencast{tab: t, sess: s, sink: sink, events: events, unsub: unsub, stop: make(chan struct{}), done: make(chan struct{})}
	driver.Step(ctx, "starting the screencast")
	if _, err := cdpapi.Call(ctx, s, page.StartScreencast, p); err != nil {
		unsub()
		return nil, fmt.Errorf("browser: starting the screencast: %w", err)
	}
	go sc.run()
	return sc, nil
}

// run acknowledges and hands on frames until Stop, the end of the
// session, a crash, or a sink error.
func (sc *Screencast) run() {
	defer close(sc.done)
	defer sc.acks.Wait()
	defer sc.unsub()
	for {
		select {
		case <-sc.stop:
			return
		case ev, ok := <-sc.events:
			if !ok {
				sc.end(fmt.Errorf("browser: tab %s: %w", sc.tab.id, ErrScreencastEnded))
				return
			}
			switch ev.Method {
			case "Inspector.targetCrashed":
				sc.end(fmt.Errorf("browser: tab %s: %w", sc.tab.id, driver.ErrTargetCrashed))
				return
			case "Inspector.detached":
				sc.end(fmt.Errorf("browser: tab %s: %w", sc.tab.id, ErrScreencastEnded))
				return
			}
			var f page.EventScreencastFrame
			if err := jsonv2.Unmarshal(ev.Params, &f); err != nil {
				sc.tab.b.log.Warn("an unreadable screencast frame", "err", err)
				continue
			}
			sc.ack(f.SessionID)
			if err := sc.sink.Frame(f.Data, frameTime(f.Metadata)); err != nil {
				sc.end(err)
				sc.acks.Add(1)
				go func() { // stop the stream the sink no longer takes
					defer sc.acks.Done()
					ctx, cancel := context.WithTimeout(context.Background(), ackWait)
					defer cancel()
					cdpapi.Call(ctx, sc.sess, page.StopScreencast, cdpapi.Empty{})
				}()
				return
			}
		}
	}
}

// ack acknowledges frame id without waiting for the answer, so the next
// frame is on its way while this one is written.
func (sc *Screencast) ack(id int64) {
	sc.acks.Add(1)
	go func() {
		defer sc.acks.Done()
		ctx, cancel := context.WithTimeout(context.Background(), ackWait)
		defer cancel()
		cdpapi.Call(ctx, sc.sess, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: id})
	}()
}

// frameTime is when a frame was painted, by the browser's clock (the same
// machine's wall clock), or now when the browser does not say.
func frameTime(m *page.ScreencastFrameMetadata) time.Time {
	if m == nil || m.Timestamp <= 0 {
		return time.Now()
	}
	sec, frac := math.Modf(float64(m.Timestamp))
	return time.Unix(int64(sec), int64(frac*1e9))
}

func (sc *Screencast) end(err error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.err == nil {
		sc.err = err
	}
}

// Done is closed when the screencast has ended, by Stop or by itself.
func (sc *Screencast) Done() <-chan struct{} { return sc.done }

// Err says why the screencast ended by itself: a sink error, or an error
// matching ErrScreencastEnded (tab closed) or ErrTargetCrashed. It is nil
// while it runs and after Stop.
func (sc *Screencast) Err() error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.err
}

// Stop stops the stream and returns once the sink has seen its last
// frame; a frame still on its way is dropped. ctx bounds the Page.stopScreencast call (a closed tab needs none).
// It is safe to call more than once and after the screencast ended.
func (sc *Screencast) Stop(ctx context.Context) error {
	var err error
	sc.once.Do(func() {
		select {
		case <-sc.done:
		default:
			if _, cerr := cdpapi.Call(ctx, sc.sess, page.StopScreencast, cdpapi.Empty{}); cerr != nil && cdp.Classify(cerr) != cdp.KindNoTarget {
				select {
				case <-sc.sess.Done():
				default:
					err = fmt.Errorf("browser: stopping the screencast: %w", cerr)
				}
			}
		}
		close(sc.stop)
	})
	<-sc.done
	return err
}
