package tools

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/driver"
)

type handleDialogArgs struct {
	Action     string `json:"action" jsonschema:"accept or dismiss"`
	PromptText string `json:"promptText,omitempty"`
	actionArgs
}

func dialogTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "handle_dialog",
			Description: "Answer the dialog blocking the page.",
			NoQueue:     true,
			Dialog:      DialogClears, Changes: ReportChanges, Core: true,
		}, handleDialog),
	}
}

type handleDialogData struct {
	Dialog *driver.Dialog `json:"dialog"`
	changed
}

func (in *handleDialogArgs) check(context.Context, *Env) error {
	switch in.Action {
	case "accept", "dismiss":
	default:
		return errorf(InvalidArgs, false, "use accept or dismiss", "action %q is not accept or dismiss", in.Action)
	}
	if in.PromptText != "" && in.Action != "accept" {
		return errorf(InvalidArgs, false, "promptText goes with action accept", "promptText is only typed when accepting")
	}
	return nil
}

// handleDialog answers the open dialog. It never waits for other calls on
// the tab: the answer goes to the browser process, not the blocked page.
func handleDialog(ctx context.Context, _ *Env, d *door, in handleDialogArgs) (*Result, error) {
	dl, err := d.tab.HandleDialog(ctx, in.Action == "accept", in.PromptText)
	if err != nil {
		return nil, err
	}
	return &Result{Data: &handleDialogData{Dialog: dl}}, nil
}

// maxDialogMessage caps a dialog's message in an error: the page chose it.
const maxDialogMessage = 300

// dialogMessage is DIALOG_OPEN's message.
func dialogMessage(d driver.Dialog) string {
	msg := d.Message
	if utf8.RuneCountInString(msg) > maxDialogMessage {
		msg = string([]rune(msg)[:maxDialogMessage]) + "…"
	}
	article := "a"
	if d.Type == driver.DialogAlert {
		article = "an"
	}
	return fmt.Sprintf("%s %s dialog blocks the page: %q", article, d.Type, msg)
}
