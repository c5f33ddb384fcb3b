package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// heartbeat is how often a call that asked for progress hears that it is
// still running, between the stages its tool reports.
const heartbeat = time.Second

// notifyTimeout bounds sending one progress notification.
const notifyTimeout = 2 * time.Second

// progress sends MCP progress notifications for one tool call: the stages
// the tool reports, and a heartbeat while it runs.
type progress struct {
	send  func(*mcp.ProgressNotificationParams) error
	token any
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup

	mu   sync.Mutex // serializes notifications, so progress increases
	n    float64    // guarded by mu; the last progress value sent
	last string     // guarded by mu; the last stage reported
}

// newProgress starts the heartbeat of a call of tool, made with ctx in
// session ss; the caller must call stop when the call returns.
func newProgress(ctx context.Context, ss *mcp.ServerSession, token any, tool string) *progress {
	// The request's context values route a notification to the call's own
	// response stream over HTTP; its cancellation must not stop them.
	base := context.WithoutCancel(ctx)
	send := func(params *mcp.ProgressNotificationParams) error {
		ctx, cancel := context.WithTimeout(base, notifyTimeout)
		defer cancel()
		return ss.NotifyProgress(ctx, params)
	}
	return startProgress(send, token, tool)
}

// startProgress is newProgress with the sending done by send.
func startProgress(send func(*mcp.ProgressNotificationParams) error, token any, tool string) *progress {
	p := &progress{send: send, token: token, start: time.Now(), done: make(chan struct{}), last: tool}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-tick.C:
				p.mu.Lock()
				msg := fmt.Sprintf("%s (%ds)", p.last, int(time.Since(p.start).Seconds()))
				p.notifyLocked(msg)
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// report sends a stage of the call.
func (p *progress) report(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = msg
	p.notifyLocked(msg)
}

// notifyLocked sends one notification; failures (a client gone) are
// ignored. p.mu must be held.
func (p *progress) notifyLocked(msg string) {
	p.n++
	p.send(&mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg})
}

// stop ends the heartbeat and waits for it.
func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}
