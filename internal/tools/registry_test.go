package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

func testEnv() *Env {
	return &Env{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Timeout: time.Second}
}

type echoArgs struct {
	URL   string `json:"url" jsonschema:"a url"`
	Count int    `json:"count,omitempty" jsonschema:"how many"`
}

func echoTool(h func(ctx context.Context, env *Env, in echoArgs) (*Result, error)) Tool {
	return define(Tool{Name: "echo", Description: "echo"}, h)
}

func TestCallDecodesArguments(t *testing.T) {
	tool := echoTool(func(_ context.Context, _ *Env, in echoArgs) (*Result, error) {
		return &Result{Data: in}, nil
	})
	tests := []struct {
		args    string
		want    echoArgs
		wantErr string
	}{
		{args: `{"url":"u","count":3}`, want: echoArgs{URL: "u", Count: 3}},
		{args: `{"url":"u"}`, want: echoArgs{URL: "u"}},
		{args: `{}`, wantErr: "url"},
		{args: ``, wantErr: "url"},
		{args: `null`, wantErr: "url"},
		{args: `{"url":"u","nope":1}`, wantErr: "nope"},
		{args: `{"url":5}`, wantErr: "url"},
		{args: `[1]`, wantErr: "JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res, err := tool.Call(t.Context(), testEnv(), json.RawMessage(tt.args))
			if tt.wantErr != "" {
				var te *Error
				if !errors.As(err, &te) || te.Code != InvalidArgs || !strings.Contains(te.Message, tt.wantErr) {
					t.Fatalf("Call(%s) error = %v, want INVALID_ARGS mentioning %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Call(%s): %v", tt.args, err)
			}
			if got := res.Data.(echoArgs); got != tt.want {
				t.Errorf("Call(%s) decoded %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

func TestCallRecoversPanics(t *testing.T) {
	tool := echoTool(func(context.Context, *Env, echoArgs) (*Result, error) { panic("secret detail") })
	_, err := tool.Call(t.Context(), testEnv(), json.RawMessage(`{"url":"u"}`))
	var te *Error
	if !errors.As(err, &te) || te.Code != Internal {
		t.Fatalf("error = %v, want INTERNAL", err)
	}
	if strings.Contains(te.Message, "secret") {
		t.Errorf("message %q leaks the panic value", te.Message)
	}
}

// TestCallHasADeadline runs in a synctest bubble: its clock moves only
// when every goroutine waits, so "exactly 50 ms" holds on any machine.
func TestCallHasADeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tool := echoTool(func(ctx context.Context, _ *Env, _ echoArgs) (*Result, error) {
			if _, ok := ctx.Deadline(); !ok {
				return nil, errors.New("no deadline")
			}
			<-ctx.Done()
			return nil, fmt.Errorf("waiting: %w", ctx.Err())
		})
		env := testEnv()
		env.Timeout = 50 * time.Millisecond
		start := time.Now()
		_, err := tool.Call(t.Context(), env, json.RawMessage(`{"url":"u"}`))
		var te *Error
		if !errors.As(err, &te) || te.Code != Timeout || !te.Recoverable {
			t.Fatalf("error = %v, want a recoverable TIMEOUT", err)
		}
		if d := time.Since(start); d != 50*time.Millisecond {
			t.Errorf("took %v, want 50ms", d)
		}
	})
}

func TestAsError(t *testing.T) {
	tests := []struct {
		err  error
		code Code
	}{
		{&driver.NoBrowserError{Reason: "r", Hint: "h"}, NoBrowser},
		{fmt.Errorf("x: %w", &driver.TargetNotFoundError{Selector: "index:3"}), TargetNotFound},
		{fmt.Errorf("%w: bad", driver.ErrInvalidSelector), InvalidArgs},
		{&driver.NavigationError{URL: "u", Text: "net::ERR_FAILED"}, NavigationFailed},
		{fmt.Errorf("x: %w", &cdp.DisconnectedError{Method: "m"}), BrowserCrashed},
		{&cdp.SessionClosedError{Method: "m"}, TargetClosed},
		{&cdp.TimeoutError{Method: "m"}, Timeout},
		{fmt.Errorf("wait: %w", context.DeadlineExceeded), Timeout},
		{context.Canceled, Cancelled},
		{policy.CheckURL("file:///etc/passwd"), URLBlocked},
		{policy.CheckURL("nope"), InvalidURL},
		{driver.ErrClosed, SessionClosed},
		{&cdp.ProtocolError{Method: "m", Message: "odd"}, Internal},
		{&Error{Code: DialogOpen, Message: "m"}, DialogOpen},
	}
	for _, tt := range tests {
		t.Run(string(tt.code), func(t *testing.T) {
			got := AsError(tt.err)
			if got.Code != tt.code || got.Message == "" {
				t.Errorf("AsError(%v) = %+v, want code %s and a message", tt.err, got, tt.code)
			}
		})
	}
}

func TestToolsAreDeclaredOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range All() {
		if seen[tool.Name] {
			t.Errorf("tool %s declared twice", tool.Name)
		}
		seen[tool.Name] = true
		if tool.Description == "" || tool.InputSchema == nil || tool.call == nil {
			t.Errorf("tool %s is incomplete", tool.Name)
		}
		if tool.InputSchema.Type != "object" {
			t.Errorf("tool %s input schema type = %q, want object", tool.Name, tool.InputSchema.Type)
		}
	}
}

// TestDefineHelperSaysWhetherATabIsNeeded checks that the helper a tool is
// declared with is what says it works on a tab: defineOn sets Tab, and
// define refuses a declaration that claims any of the door's work.
func TestDefineHelperSaysWhetherATabIsNeeded(t *testing.T) {
	t.Parallel()
	onTab := func(context.Context, *Env, *door, echoArgs) (*Result, error) { return nil, nil }
	if tool := defineOn(Tool{Name: "on_tab"}, onTab); !tool.Tab {
		t.Error("defineOn: Tab = false, want true")
	}
	if tool := echoTool(nil); tool.Tab {
		t.Error("define: Tab = true, want false")
	}
	claims := map[string]Tool{
		"Tab":       {Tab: true},
		"NoQueue":   {NoQueue: true},
		"Recovers":  {Recovers: true},
		"Dialog":    {Dialog: DialogPasses},
		"Changes":   {Changes: TryChanges},
		"SaysWhere": {SaysWhere: true},
	}
	for field, decl := range claims {
		t.Run(field, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("define with %s set did not panic", field)
				}
			}()
			decl.Name = "browser_level"
			define(decl, func(context.Context, *Env, echoArgs) (*Result, error) { return nil, nil })
		})
	}
}
