package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// dialogAnswerTimeout bounds the policy's answer to a dialog. The browser
// process answers, so a busy page cannot delay it.
const dialogAnswerTimeout = 5 * time.Second

// dialogTracker follows a tab's JavaScript dialogs from the first attach,
// answers those the policy covers, and remembers the one waiting for an
// answer. The zero value is ready to use.
type dialogTracker struct {
	mu        sync.Mutex
	policy    driver.DialogPolicy          // guarded by mu; "" means DialogsReport
	run       *dialogRun                   // guarded by mu; the session followed
	open      *openDialog                  // guarded by mu; nil when no dialog is open
	note      *driver.Dialog               // guarded by mu; the last dialog closed without the agent, not yet reported
	earlier   int                          // guarded by mu; dialogs closed before note, not reported
	watchers  map[int]func(*driver.Dialog) // guarded by mu; see watch
	nextWatch int                          // guarded by mu
	opens     [dialogStorm]time.Time       // guarded by mu; when the last dialogStorm dialogs opened, a ring
	opened    int                          // guarded by mu; how many dialogs opened, ever
	wake      chan struct{}                // guarded by mu; closed (and dropped) when a dialog opens
}

// dialogRun follows one session's dialog events.
type dialogRun struct {
	sess *cdp.Session
	stop func() // ends the subscription, and so the goroutine
}

// openDialog is a dialog that has not closed yet.
type openDialog struct {
	driver.Dialog // immutable; Handled is DialogOpen
	sess          *cdp.Session
	answering     bool // guarded by dialogTracker.mu; the policy or the agent is answering it
	byAgent       bool // guarded by dialogTracker.mu; the agent answered it (HandleDialog)
}

// track starts following s's dialog events, replacing the session
// followed before. It sends no command, so call it before Page.enable: a
// dialog opening during the enable is not missed.
func (d *dialogTracker) track(s *cdp.Session) {
	events, stop := s.SubscribeEvents("Page.javascriptDialogOpening", "Page.javascriptDialogClosed")
	run := &dialogRun{sess: s, stop: stop}
	d.mu.Lock()
	prev := d.run
	d.run = run
	d.open = nil // a dialog of the old session can no longer be answered through it
	d.mu.Unlock()
	if prev != nil {
		prev.stop()
	}
	go d.follow(run, events)
}

// follow handles run's events until its session closes.
func (d *dialogTracker) follow(run *dialogRun, events <-chan cdp.Event) {
	defer run.stop()
	for ev := range events {
		switch ev.Method {
		case "Page.javascriptDialogOpening":
			var e page.EventJavascriptDialogOpening
			if jsonv2.Unmarshal(ev.Params, &e) == nil {
				d.opening(run, &e)
			}
		case "Page.javascriptDialogClosed":
			var e page.EventJavascriptDialogClosed
			if jsonv2.Unmarshal(ev.Params, &e) == nil {
				d.closed(run, &e)
			}
		}
	}
	d.mu.Lock()
	if d.open != nil && d.open.sess == run.sess {
		d.open = nil
	}
	d.mu.Unlock()
}

// opening records a dialog and answers it if the policy says so; else it
// tells the watchers.
func (d *dialogTracker) opening(run *dialogRun, e *page.EventJavascriptDialogOpening) {
	od := &openDialog{
		Dialog: driver.Dialog{Type: string(e.Type), Message: e.Message, DefaultPrompt: e.DefaultPrompt, Handled: driver.DialogOpen},
		sess:   run.sess,
	}
	d.mu.Lock()
	d.opens[d.opened%dialogStorm] = time.Now()
	d.opened++
	if d.wake != nil {
		close(d.wake)
		d.wake = nil
	}
	accept, auto := d.answerLocked(od.Type)
	od.answering = auto
	d.open = od
	if auto {
		// Noted before the page resumes, so that the result of whatever
		// the page does next can mention it.
		d.noteLocked(od.Dialog, accept)
	}
	d.mu.Unlock()
	if !auto {
		d.notify(od)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), dialogAnswerTimeout)
	err := answerDialog(ctx, run.sess, accept, od.DefaultPrompt)
	cancel()
	d.mu.Lock()
	if d.open != od { // the close event came first
		d.mu.Unlock()
		return
	}
	if err != nil && !isNoDialog(err) {
		// Left open: now it waits for the agent.
		od.answering = false
		d.mu.Unlock()
		d.notify(od)
		return
	}
	d.open = nil
	d.mu.Unlock()
}

// closed forgets the open dialog, and notes it unless the agent answered
// it or the policy did (noted already).
func (d *dialogTracker) closed(run *dialogRun, e *page.EventJavascriptDialogClosed) {
	d.mu.Lock()
	defer d.mu.Unlock()
	od := d.open
	if od == nil || od.sess != run.sess {
		return
	}
	d.open = nil
	if !od.byAgent && !od.answering {
		d.noteLocked(od.Dialog, e.Result)
	}
}

// answerLocked says whether the policy answers a dialog of type typ, and
// how.
func (d *dialogTracker) answerLocked(typ string) (accept, auto bool) {
	switch {
	case typ == driver.DialogBeforeUnload:
		return true, true
	case d.policy == driver.DialogsAccept:
		return true, true
	case d.policy == driver.DialogsDismiss:
		return false, true
	case typ == driver.DialogAlert:
		return true, true
	}
	return false, false
}

func (d *dialogTracker) noteLocked(dl driver.Dialog, accepted bool) {
	dl.Handled = handledAs(accepted)
	if d.note != nil {
		d.earlier++
	}
	d.note = &dl
}

// notify tells the watchers that od waits for an answer.
func (d *dialogTracker) notify(od *openDialog) {
	d.mu.Lock()
	fns := make([]func(*driver.Dialog), 0, len(d.watchers))
	for _, f := range d.watchers {
		fns = append(fns, f)
	}
	d.mu.Unlock()
	for _, f := range fns {
		dl := od.Dialog
		f(&dl)
	}
}

// waiting returns the dialog that waits for the agent's answer, or nil.
func (d *dialogTracker) waiting() *driver.Dialog {
	d.mu.Lock()
	defer d.mu.Unlock()
	if od := d.open; od != nil && !od.answering {
		dl := od.Dialog
		return &dl
	}
	return nil
}

// watch calls f when a dialog opens that waits for the agent's answer, or
// at once if one is open. The returned func stops the watch.
func (d *dialogTracker) watch(f func(*driver.Dialog)) (stop func()) {
	d.mu.Lock()
	if od := d.open; od != nil && !od.answering {
		dl := od.Dialog
		d.mu.Unlock()
		f(&dl)
		return func() {}
	}
	if d.watchers == nil {
		d.watchers = make(map[int]func(*driver.Dialog))
	}
	id := d.nextWatch
	d.nextWatch++
	d.watchers[id] = f
	d.mu.Unlock()
	return func() {
		d.mu.Lock()
		delete(d.watchers, id)
		d.mu.Unlock()
	}
}

func handledAs(accepted bool) string {
	if accepted {
		return driver.DialogAccepted
	}
	return driver.DialogDismissed
}

func answerDialog(ctx context.Context, s *cdp.Session, accept bool, text string) error {
	_, err := cdpapi.Call(ctx, s, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: text})
	return err
}

// isNoDialog reports the browser's answer to handling a dialog that has
// already closed.
func isNoDialog(err error) bool {
	return cdp.Classify(err) == cdp.KindNoDialog
}

// SetDialogPolicy sets which of the tab's dialogs cdpkit answers by itself
// from now on; a dialog open now keeps waiting. The default is
// DialogsReport.
func (t *Tab) SetDialogPolicy(p driver.DialogPolicy) {
	t.dialogs.mu.Lock()
	defer t.dialogs.mu.Unlock()
	t.dialogs.policy = p
}

// CheckDialog returns a [*DialogOpenError] while a dialog waits for an
// answer, and nil otherwise. Call it before page work: while a dialog is
// open the page runs nothing, and a command that needs the page (evaluate,
// snapshot, screenshot, input) waits until its deadline. Dialogs are
// tracked from the tab's first [Tab.session]. It sends no command.
func (t *Tab) CheckDialog() error {
	if dl := t.dialogs.waiting(); dl != nil {
		return &driver.DialogOpenError{Dialog: *dl}
	}
	return nil
}

// DialogNote returns the dialog a tool's result should mention, or nil:
// the one waiting for an answer (Handled is DialogOpen), or else the last
// one that closed without the agent's answer (the policy answered it, or a
// navigation closed it) since the previous note, which it then forgets.
func (t *Tab) DialogNote() *driver.Dialog {
	d := &t.dialogs
	d.mu.Lock()
	defer d.mu.Unlock()
	if od := d.open; od != nil && !od.answering {
		dl := od.Dialog
		return &dl
	}
	if d.note == nil {
		return nil
	}
	dl := *d.note
	dl.Earlier = d.earlier
	d.note, d.earlier = nil, 0
	return &dl
}

// HandleDialog accepts or dismisses the dialog that waits for an answer,
// typing promptText into a prompt first when accepting (an empty
// promptText leaves a prompt's default text), and returns it with Handled
// set. With no such dialog it fails with [ErrNoDialog].
//
// It goes to the browser process, never to the page, so it works while
// other calls on the tab are blocked by the dialog. The context bounds the
// call.
func (t *Tab) HandleDialog(ctx context.Context, accept bool, promptText string) (*driver.Dialog, error) {
	d := &t.dialogs
	d.mu.Lock()
	od := d.open
	if od == nil || od.answering {
		d.mu.Unlock()
		return nil, fmt.Errorf("browser: handling a dialog: %w", driver.ErrNoDialog)
	}
	od.answering, od.byAgent = true, true
	d.mu.Unlock()
	if accept && promptText == "" {
		promptText = od.DefaultPrompt
	}
	// What the answer sets off (a navigation, perhaps after a fetch) is
	// waited for as after any action, so that the caller reads the page
	// the answer led to, not the one being replaced.
	var aw *actionWatch
	ps, err := t.session(ctx)
	if err == nil {
		var stop func()
		aw, stop = watchAction(ps, cdpapi.FrameID(t.id))
		defer stop()
	}
	err = answerDialog(ctx, od.sess, accept, promptText)
	d.mu.Lock()
	switch {
	case isNoDialog(err):
		if d.open == od {
			d.open = nil
		}
		d.mu.Unlock()
		return nil, fmt.Errorf("browser: handling a dialog: %w", driver.ErrNoDialog)
	case err != nil:
		od.answering, od.byAgent = false, false
		d.mu.Unlock()
		return nil, fmt.Errorf("browser: handling a dialog: %w", err)
	}
	if d.open == od {
		d.open = nil
	}
	dl := od.Dialog
	dl.Handled = handledAs(accept)
	d.mu.Unlock()
	if aw != nil {
		// Best effort, like settling: the answer is given either way.
		t.RunUntilDialog(ctx, func(ctx context.Context) error { return t.awaitNavigation(ctx, ps, aw, false, waitAfterInput) })
	}
	return &dl, nil
}

// UntilDialog returns a context that also ends when a dialog opens that
// waits for an answer (at once if one is open), with a [*DialogOpenError]
// as its cause (see [context.Cause]). Page work run under it returns
// instead of waiting for its deadline behind the dialog. Dialogs the policy
// answers do not end it: the page resumes by itself; unless they come in a
// loop (dialogStorm of them in dialogStormWindow), which no page work
// would ever get past: then the tab's renderer is stopped and the context
// ends with ErrDialogLoop as its cause. Call the cancel func when done.
func (t *Tab) UntilDialog(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := t.dialogs.watch(func(dl *driver.Dialog) { cancel(&driver.DialogOpenError{Dialog: *dl}) })
	done := make(chan struct{})
	go t.watchDialogStorm(ctx, done, cancel)
	return ctx, func() {
		close(done)
		stop()
		cancel(context.Canceled)
	}
}

// RunUntilDialog runs fn under [Tab.UntilDialog]. If a dialog that waits
// for an answer opens before fn returns, RunUntilDialog returns it at once,
// with fn's error unless that error is only the context ending for the
// dialog. This is how an action that opens a dialog (a click whose mouse
// release runs confirm()) returns promptly: the browser does not answer
// the input command until the dialog closes, and the late answer is
// discarded.
func (t *Tab) RunUntilDialog(ctx context.Context, fn func(ctx context.Context) error) (*driver.Dialog, error) {
	dctx, cancel := t.UntilDialog(ctx)
	defer cancel()
	err := fn(dctx)
	var de *driver.DialogOpenError
	if errors.Is(context.Cause(dctx), driver.ErrDialogLoop) {
		return nil, driver.ErrDialogLoop
	}
	if !errors.As(context.Cause(dctx), &de) {
		return nil, err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, driver.ErrDialogOpen) {
		err = nil
	}
	return &de.Dialog, err
}

// dialogErr returns the dialog that ended ctx, made by
// [Tab.UntilDialog], in place of err.
func dialogErr(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), driver.ErrDialogLoop) {
		return driver.ErrDialogLoop
	}
	var de *driver.DialogOpenError
	if err != nil && errors.As(context.Cause(ctx), &de) {
		return de
	}
	return err
}
