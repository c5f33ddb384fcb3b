package driver

import (
	"errors"
	"fmt"
	"time"
)

// Console message levels.
const (
	LevelLog   = "log"
	LevelInfo  = "info"
	LevelWarn  = "warn"
	LevelError = "error"
	LevelDebug = "debug"
)

// ConsoleLevels lists the levels a message can have.
var ConsoleLevels = []string{LevelLog, LevelInfo, LevelWarn, LevelError, LevelDebug}

// ErrConsoleMessageNotFound means no kept console message has the asked id.
var ErrConsoleMessageNotFound = errors.New("browser: no such console message")

// ConsoleMessageError names the id that matched no kept message.
type ConsoleMessageError struct {
	ID   int
	Gone bool // the id was issued, but its message was cleared or dropped
}

func (e *ConsoleMessageError) Error() string {
	if e.Gone {
		return fmt.Sprintf("browser: console message %d was cleared or dropped", e.ID)
	}
	return fmt.Sprintf("browser: no console message %d", e.ID)
}

func (e *ConsoleMessageError) Unwrap() error { return ErrConsoleMessageNotFound }

// ConsoleMessage is one console API call, uncaught exception or browser log
// entry of a tab.
type ConsoleMessage struct {
	// ID increases with each message and is never reused in the tab.
	ID int `json:"id"`
	// Level is one of ConsoleLevels.
	Level string `json:"level"`
	// Source is "console" for console API calls, "exception" for uncaught
	// exceptions, or the browser's log source: network, security, …
	Source string `json:"source"`
	// Type is the console API call (log, table, assert, …) for source
	// console.
	Type string `json:"type,omitempty"`
	Text string `json:"text"`
	// Truncated says Text was cut.
	Truncated bool      `json:"truncated,omitempty"`
	URL       string    `json:"url,omitempty"`
	Line      int       `json:"line,omitempty"` // 1-based; 0 when unknown
	Time      time.Time `json:"time"`
	// Stack holds the top frames as "fn url:line:col", in
	// [TabDriver.ConsoleMessage] only.
	Stack []string `json:"stack,omitempty"`
}

// ConsoleQuery selects console messages.
type ConsoleQuery struct {
	Levels []string // only these levels; all when empty
	Offset int      // skip this many of the matching messages, oldest first
	Limit  int      // return at most this many; 0 means all
	Clear  bool     // forget all the tab's messages once read
}

// Bounds of a tab's console log, on every backend.
const (
	// ConsoleKeep is how many messages a tab keeps; older ones are dropped.
	ConsoleKeep = 500
	// ConsoleListChars caps a message's text in ConsoleMessages.
	ConsoleListChars = 2_000
	// ConsoleFullChars caps a message's text in ConsoleMessage.
	ConsoleFullChars = 20_000
)
