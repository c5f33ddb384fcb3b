package browser

import (
	"context"
	"errors"
	"strconv"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// fenceWorld names the isolated world fences run in. In the page's own
// world a global named inspect would shadow the console's, and the page
// would see the call.
const fenceWorld = "cdpkit-console"

// fence sends fence n. It makes the isolated world on first use and again
// when its context is gone with its document.
func (c *consoleLog) fence(ctx context.Context, run *consoleRun, n int) error {
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		world := run.world
		c.mu.Unlock()
		if world == 0 {
			_, main, err := loaders(ctx, run.sess)
			if err != nil {
				return err
			}
			w, err := cdpapi.Call(ctx, run.sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: main, WorldName: fenceWorld})
			if err != nil {
				return err
			}
			world = w.ExecutionContextID
			c.mu.Lock()
			run.world = world
			c.mu.Unlock()
		}
		yes := true
		res, err := cdpapi.Call(ctx, run.sess, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "inspect(" + strconv.Itoa(n) + ")", ContextID: world,
			IncludeCommandLineAPI: &yes, Silent: &yes, ReturnByValue: &yes,
		})
		if err == nil && res.ExceptionDetails == nil {
			return nil
		}
		c.mu.Lock()
		if run.world == world {
			run.world = 0
		}
		c.mu.Unlock()
		if attempt > 0 || ctx.Err() != nil {
			if err == nil {
				err = errors.New("browser: the console fence threw")
			}
			return err
		}
	}
}

// awaitFence waits for the recorder to see fence. It reports false if ctx
// ended first.
func (c *consoleLog) awaitFence(ctx context.Context, run *consoleRun, fence int) bool {
	for {
		c.mu.Lock()
		if c.fenceCh == nil {
			c.fenceCh = make(chan struct{})
		}
		reached, moved := c.fenced >= fence, c.fenceCh
		c.mu.Unlock()
		if reached {
			return true
		}
		select {
		case <-moved:
		case <-run.done:
			return true
		case <-ctx.Done():
			return false
		}
	}
}
