package firefox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// The console log, from log.entryAdded: a ring of a tab's last
// driver.ConsoleKeep messages with the same caps and result shape as
// Chromium's. Console API calls are source "console"; uncaught exceptions
// (BiDi's "javascript" entries) are source "exception".

const (
	// consoleBudget bounds the bytes of text a tab keeps; past it the
	// oldest messages keep only their first driver.ConsoleListChars.
	consoleBudget = 2 << 20
	// consoleFrames bounds the stack frames kept per message.
	consoleFrames = 8
	// consoleURLChars caps a URL (data: URLs can be huge).
	consoleURLChars = 300
)

// consoleLog is a tab's console record. The zero value is ready to use.
type consoleLog struct {
	mu       sync.Mutex
	ring     []driver.ConsoleMessage // guarded by mu; oldest first, at most ConsoleKeep
	lastID   int                     // guarded by mu; the last id issued
	bytes    int                     // guarded by mu; bytes of text in ring
	preserve bool                    // guarded by mu
}

// logEntry is the part of a log.entryAdded event cdpkit reads.
type logEntry struct {
	Type      string  `json:"type"` // console, javascript
	Level     string  `json:"level"`
	Text      *string `json:"text"`
	Method    string  `json:"method"`
	Timestamp int64   `json:"timestamp"`
	Source    struct {
		Context string `json:"context"`
	} `json:"source"`
	StackTrace *struct {
		CallFrames []struct {
			FunctionName string `json:"functionName"`
			URL          string `json:"url"`
			LineNumber   int    `json:"lineNumber"`
			ColumnNumber int    `json:"columnNumber"`
		} `json:"callFrames"`
	} `json:"stackTrace"`
}

// message converts an entry.
func (e *logEntry) message() driver.ConsoleMessage {
	m := driver.ConsoleMessage{Source: "console", Type: e.Method, Time: time.UnixMilli(e.Timestamp)}
	if e.Timestamp <= 0 {
		m.Time = time.Now()
	}
	text := ""
	if e.Text != nil {
		text = *e.Text
	}
	if e.Type == "javascript" {
		m.Source, m.Type, m.Level = "exception", "", driver.LevelError
	} else {
		switch e.Method {
		case "error", "assert":
			m.Level = driver.LevelError
		case "warn":
			m.Level = driver.LevelWarn
		case "info":
			m.Level = driver.LevelInfo
		case "debug", "trace":
			m.Level = driver.LevelDebug
		case "log", "dir", "dirxml", "table", "count", "timeEnd", "timeLog", "group", "groupCollapsed", "clear":
			m.Level = driver.LevelLog
		default:
			m.Level = levelOf(e.Level)
		}
		if e.Method == "assert" && text == "" {
			text = "Assertion failed"
		}
	}
	m.Text, m.Truncated = capText(text, driver.ConsoleFullChars)
	if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
		frames := e.StackTrace.CallFrames
		if top := frames[0]; top.URL != "" {
			m.URL, _ = capText(top.URL, consoleURLChars)
			m.Line = top.LineNumber + 1
		}
		for _, f := range frames[:min(len(frames), consoleFrames)] {
			name := f.FunctionName
			if name == "" {
				name = "(anonymous)"
			}
			u, _ := capText(f.URL, consoleURLChars)
			m.Stack = append(m.Stack, fmt.Sprintf("%s %s:%d:%d", name, u, f.LineNumber+1, f.ColumnNumber+1))
		}
	}
	return m
}

func levelOf(bidiLevel string) string {
	switch bidiLevel {
	case "error":
		return driver.LevelError
	case "warn":
		return driver.LevelWarn
	case "debug":
		return driver.LevelDebug
	}
	return driver.LevelInfo
}

// capText cuts s to n characters, reporting whether it cut.
func capText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos], true
		}
		i++
	}
	return s, false
}

// isFaviconMiss reports the browser's own failing favicon request.
func isFaviconMiss(m driver.ConsoleMessage) bool {
	u, err := url.Parse(m.URL)
	return m.Source != "console" && m.Source != "exception" && err == nil && u.Path == "/favicon.ico"
}

func (c *consoleLog) add(m driver.ConsoleMessage) {
	if isFaviconMiss(m) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastID++
	m.ID = c.lastID
	if len(c.ring) == driver.ConsoleKeep {
		c.bytes -= len(c.ring[0].Text)
		c.ring = slices.Delete(c.ring, 0, 1)
	}
	c.ring = append(c.ring, m)
	c.bytes += len(m.Text)
	for i := 0; c.bytes > consoleBudget && i < len(c.ring); i++ {
		old := &c.ring[i]
		if text, cut := capText(old.Text, driver.ConsoleListChars); cut {
			c.bytes -= len(old.Text) - len(text)
			old.Text, old.Truncated = text, true
		}
	}
}

// navigated clears the record for a new document, unless preserved.
func (c *consoleLog) navigated() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.preserve {
		c.clearLocked()
	}
}

func (c *consoleLog) clearLocked() {
	c.ring, c.bytes = nil, 0
}

// onLog records a log.entryAdded event in the tab it came from; it runs
// on the connection's reader and never blocks.
func (b *Browser) onLog(params json.RawMessage) {
	var e logEntry
	if json.Unmarshal(params, &e) != nil {
		return
	}
	if t := b.tabOf(e.Source.Context); t != nil {
		t.console.add(e.message())
	}
}

// tabOf returns the tab a browsing context (the tab's or a frame's)
// belongs to, or nil.
func (b *Browser) tabOf(context string) *Tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	top := context
	for range 64 { // frames nest; bounded against a cycle
		p, ok := b.parents[top]
		if !ok {
			break
		}
		top = p
	}
	return b.tabs[top]
}

// catchUp makes a round trip to the tab's page, whose reply Firefox sends
// after the log and network events the page caused before it. A page
// that cannot answer (a dialog, a navigation) is not waited for.
func (t *Tab) catchUp(ctx context.Context) {
	if t.promptOpen() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	t.call(ctx, t.id, readSandbox, "() => 0", nil, nil, 0)
}

// ConsoleMessages implements driver.TabDriver, as on Chromium: the
// messages that match q, oldest first, texts capped at
// driver.ConsoleListChars, and how many match in all. Recording starts
// when the tab opens.
func (t *Tab) ConsoleMessages(ctx context.Context, q driver.ConsoleQuery) ([]driver.ConsoleMessage, int, error) {
	if err := t.CheckCrashed(); err != nil {
		return nil, 0, err
	}
	t.catchUp(ctx)
	c := &t.console
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []driver.ConsoleMessage
	total := 0
	for _, m := range c.ring {
		if len(q.Levels) > 0 && !slices.Contains(q.Levels, m.Level) {
			continue
		}
		total++
		if total <= q.Offset || (q.Limit > 0 && len(out) >= q.Limit) {
			continue
		}
		short := m
		short.Stack = nil
		if text, cut := capText(m.Text, driver.ConsoleListChars); cut {
			short.Text, short.Truncated = text, true
		}
		out = append(out, short)
	}
	if q.Clear {
		c.clearLocked()
	}
	return out, total, nil
}

// ConsoleMessage implements driver.TabDriver: one message with its text
// capped at driver.ConsoleFullChars and its top stack frames.
func (t *Tab) ConsoleMessage(ctx context.Context, id int) (driver.ConsoleMessage, error) {
	if err := t.CheckCrashed(); err != nil {
		return driver.ConsoleMessage{}, err
	}
	t.catchUp(ctx)
	c := &t.console
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.ring {
		if m.ID == id {
			m.Stack = slices.Clone(m.Stack)
			return m, nil
		}
	}
	return driver.ConsoleMessage{}, &driver.ConsoleMessageError{ID: id, Gone: id > 0 && id <= c.lastID}
}

// SetConsolePreserve implements driver.TabDriver: whether messages
// survive navigations from now on.
func (t *Tab) SetConsolePreserve(on bool) {
	t.console.mu.Lock()
	defer t.console.mu.Unlock()
	t.console.preserve = on
}
