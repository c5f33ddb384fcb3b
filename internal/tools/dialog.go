package tools

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/browser"
)

type handleDialogArgs struct {
	Action     string `json:"action" jsonschema:"accept or dismiss"`
	PromptText string `json:"promptText,omitempty" jsonschema:"a prompt's answer when accepting"`
	actionArgs
}

func dialogTools() []Tool {
	return []Tool{
		define(Tool{
			Name:        "handle_dialog",
			Description: "Accept or dismiss the JavaScript dialog (confirm, prompt) that blocks the page.",
			NoQueue:     true,
		}, handleDialog),
	}
}

type handleDialogData struct {
	Dialog  *browser.Dialog `json:"dialog"`
	Changes *Changes        `json:"changes"`
}

// handleDialog answers the open dialog. It never waits for other calls on
// the tab: the answer goes to the browser process, not the blocked page.
func handleDialog(ctx context.Context, env *Env, in handleDialogArgs) (*Result, error) {
	var accept bool
	switch in.Action {
	case "accept":
		accept = true
	case "dismiss":
	default:
		return nil, errorf(InvalidArgs, false, "use accept or dismiss", "action %q is not accept or dismiss", in.Action)
	}
	if in.PromptText != "" && !accept {
		return nil, errorf(InvalidArgs, false, "promptText goes with action accept", "promptText is only typed when accepting")
	}
	b, tab, err := useTab(ctx, env, in.Target)
	if err != nil {
		return nil, err
	}
	if tab.CheckDialog() == nil {
		return nil, browser.ErrNoDialog
	}
	o, err := observe(ctx, b, tab)
	if err != nil {
		return nil, err
	}
	dl, err := tab.HandleDialog(ctx, accept, in.PromptText)
	if err != nil {
		return nil, err
	}
	c, err := o.changesSince(ctx, in.IncludeSnapshot)
	if err != nil {
		return nil, err
	}
	return &Result{Data: handleDialogData{Dialog: dl, Changes: c}}, nil
}

// maxDialogMessage caps a dialog's message in an error: the page chose it.
const maxDialogMessage = 300

// dialogMessage is DIALOG_OPEN's message.
func dialogMessage(d browser.Dialog) string {
	msg := d.Message
	if utf8.RuneCountInString(msg) > maxDialogMessage {
		msg = string([]rune(msg)[:maxDialogMessage]) + "…"
	}
	article := "a"
	if d.Type == browser.DialogAlert {
		article = "an"
	}
	return fmt.Sprintf("%s %s dialog blocks the page: %q", article, d.Type, msg)
}
