package cdpkit

import "context"

// DialogPolicy says which JavaScript dialogs cdpkit answers by itself,
// without the caller (Options.Dialogs).
type DialogPolicy string

// The dialog policies.
const (
	// DialogsReport, the default, accepts alerts and beforeunload
	// prompts; a confirm or prompt stays open, reported in the action's
	// Changes.Dialog, and other calls on the tab fail with DIALOG_OPEN
	// until AcceptDialog or DismissDialog answers it.
	DialogsReport DialogPolicy = "report"
	// DialogsAccept accepts every dialog (a prompt with its default text).
	DialogsAccept DialogPolicy = "accept"
	// DialogsDismiss dismisses every dialog.
	DialogsDismiss DialogPolicy = "dismiss"
)

// AcceptDialog answers the dialog that blocks the tab with OK, typing
// promptText first into a prompt (when not ""), and returns the dialog
// and what answering it changed. Without a dialog it fails with
// NO_DIALOG. It does not wait behind other calls on the tab: the blocked
// call is what it unblocks.
func (t *Tab) AcceptDialog(ctx context.Context, promptText string) (*Dialog, *Changes, error) {
	return t.answerDialog(ctx, "accept", promptText)
}

// DismissDialog answers the dialog that blocks the tab with Cancel, as
// AcceptDialog does with OK.
func (t *Tab) DismissDialog(ctx context.Context) (*Dialog, *Changes, error) {
	return t.answerDialog(ctx, "dismiss", "")
}

func (t *Tab) answerDialog(ctx context.Context, action, prompt string) (*Dialog, *Changes, error) {
	var out struct {
		Dialog  *Dialog  `json:"dialog"`
		Changes *Changes `json:"changes"`
	}
	if err := t.call(ctx, "handle_dialog", map[string]any{"action": action, "promptText": prompt}, &out); err != nil {
		return nil, nil, err
	}
	return out.Dialog, out.Changes, nil
}
