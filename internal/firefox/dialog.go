package firefox

import (
	"context"
	"errors"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/bidi"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// promptOpened records a user prompt (alert, confirm, prompt,
// beforeunload) and answers it at once when the dialog policy says so.
// It runs on the connection's reader: the answer goes out from its own
// goroutine, bounded by the command timeout.
func (t *Tab) promptOpened(d driver.Dialog) {
	t.mu.Lock()
	t.prompt = &d
	close(t.promptCh)
	policy := t.policy
	t.mu.Unlock()
	// An action's wait ends when a prompt waits for the agent (settle.go).
	t.net.mu.Lock()
	t.net.movedLocked()
	t.net.mu.Unlock()
	accept, auto := autoAnswer(policy, d.Type)
	if !auto {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), t.b.o.CommandTimeout+bidi.DefaultTimeout)
		defer cancel()
		text := ""
		if accept && d.Type == "prompt" {
			text = d.DefaultPrompt // an accepted prompt gets its default text
		}
		if _, err := t.answer(ctx, accept, text); err != nil && !errors.Is(err, driver.ErrNoDialog) {
			t.b.o.logger().Warn("firefox: answering a dialog", "type", d.Type, "err", err)
		}
	}()
}

// autoAnswer says whether the policy answers a dialog of typ by itself,
// and how.
func autoAnswer(p driver.DialogPolicy, typ string) (accept, auto bool) {
	switch p {
	case driver.DialogsAccept:
		return true, true
	case driver.DialogsDismiss:
		return typ == "beforeunload", true
	}
	if typ == "alert" || typ == "beforeunload" {
		return true, true
	}
	return false, false
}

func (t *Tab) promptClosed(accepted bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.prompt == nil {
		return
	}
	d := *t.prompt
	d.Handled = driver.DialogDismissed
	if accepted {
		d.Handled = driver.DialogAccepted
	}
	t.note = &d
	t.prompt = nil
	t.promptCh = make(chan struct{})
}

func (t *Tab) promptOpen() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.prompt != nil
}

// promptWaits reports whether a prompt is open that the dialog policy
// leaves for the agent to answer.
func (t *Tab) promptWaits() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.prompt == nil {
		return false
	}
	_, auto := autoAnswer(t.policy, t.prompt.Type)
	return !auto
}

// opened returns a channel closed when a prompt opens on the tab.
func (t *Tab) opened() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.promptCh
}

// SetDialogPolicy implements driver.TabDriver.
func (t *Tab) SetDialogPolicy(p driver.DialogPolicy) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p == "" {
		p = driver.DialogsReport
	}
	t.policy = p
}

// CheckDialog implements driver.TabDriver: a *driver.DialogOpenError
// while a prompt waits for an answer.
func (t *Tab) CheckDialog() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.prompt != nil {
		return &driver.DialogOpenError{Dialog: *t.prompt}
	}
	return nil
}

// DialogNote implements driver.TabDriver: the prompt waiting for an
// answer, else the last one answered without the agent (reported once).
func (t *Tab) DialogNote() *driver.Dialog {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.prompt != nil {
		d := *t.prompt
		return &d
	}
	d := t.note
	t.note = nil
	return d
}

// HandleDialog implements driver.TabDriver: browsingContext.handleUserPrompt.
func (t *Tab) HandleDialog(ctx context.Context, accept bool, promptText string) (*driver.Dialog, error) {
	d, err := t.answer(ctx, accept, promptText)
	if err == nil {
		t.mu.Lock()
		t.note = nil // the agent answered it: nothing to report
		t.mu.Unlock()
	}
	return d, err
}

// answer answers the open prompt, leaving it noted as answered.
func (t *Tab) answer(ctx context.Context, accept bool, promptText string) (*driver.Dialog, error) {
	t.mu.Lock()
	if t.prompt == nil {
		t.mu.Unlock()
		return nil, driver.ErrNoDialog
	}
	d := *t.prompt
	t.mu.Unlock()
	params := map[string]any{"context": t.id, "accept": accept}
	if promptText != "" {
		params["userText"] = promptText
	}
	err := t.b.conn.Call(ctx, "browsingContext.handleUserPrompt", params, nil)
	if errors.Is(err, bidi.ErrNoSuchAlert) {
		t.promptClosed(accept)
		return nil, driver.ErrNoDialog
	}
	if err != nil {
		return nil, fmt.Errorf("firefox: answering the dialog: %w", err)
	}
	t.promptClosed(accept)
	d.Handled = driver.DialogDismissed
	if accept {
		d.Handled = driver.DialogAccepted
	}
	return &d, nil
}
