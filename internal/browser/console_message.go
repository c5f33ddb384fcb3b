package browser

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/browser/consolefmt"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// consoleAPIMessage converts a console API call.
func consoleAPIMessage(e *runtime.EventConsoleAPICalled) driver.ConsoleMessage {
	m := driver.ConsoleMessage{Source: "console", Type: string(e.Type), Time: cdpTime(e.Timestamp)}
	switch e.Type {
	case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
		m.Level = driver.LevelError
	case runtime.ConsoleAPICalledTypeWarning:
		m.Level = driver.LevelWarn
	case runtime.ConsoleAPICalledTypeInfo:
		m.Level = driver.LevelInfo
	case runtime.ConsoleAPICalledTypeDebug:
		m.Level = driver.LevelDebug
	default:
		m.Level = driver.LevelLog
	}
	m.Text, m.Truncated = consolefmt.Args(e.Args, driver.ConsoleFullChars)
	switch {
	case e.Type == runtime.ConsoleAPICalledTypeAssert && m.Text == "":
		m.Text = "Assertion failed"
	case e.Type == runtime.ConsoleAPICalledTypeAssert:
		m.Text = "Assertion failed: " + m.Text
	case e.Type == runtime.ConsoleAPICalledTypeClear:
		m.Text = "console.clear()"
	}
	m.URL, m.Line, m.Stack = stackInfo(e.StackTrace)
	return m
}

// exceptionMessage converts an uncaught exception.
func exceptionMessage(e *runtime.EventExceptionThrown) driver.ConsoleMessage {
	d := e.ExceptionDetails
	m := driver.ConsoleMessage{Level: driver.LevelError, Source: "exception", Time: cdpTime(e.Timestamp)}
	text := d.Text // "Uncaught", "Uncaught (in promise)", or a whole message
	if d.Exception != nil {
		what := d.Exception.Description
		if d.Exception.Subtype == runtime.RemoteObjectSubtypeError {
			// The description repeats the stack, which Stack holds.
			what, _, _ = strings.Cut(what, "\n    at ")
		} else {
			what, _ = consolefmt.Arg(d.Exception, driver.ConsoleFullChars)
		}
		if what != "" && !strings.Contains(text, what) {
			text += " " + what
		}
	}
	m.Text, m.Truncated = consolefmt.Cap(text, driver.ConsoleFullChars)
	m.URL, m.Line, m.Stack = stackInfo(d.StackTrace)
	if m.URL == "" && d.URL != "" {
		m.URL, _ = consolefmt.Cap(d.URL, consoleURLChars)
		m.Line = int(d.LineNumber) + 1
	}
	return m
}

// logMessage converts a browser log entry, such as a failed resource load.
func logMessage(e *log.Entry) driver.ConsoleMessage {
	m := driver.ConsoleMessage{Source: string(e.Source), Time: cdpTime(e.Timestamp)}
	switch e.Level {
	case log.EntryLevelError:
		m.Level = driver.LevelError
	case log.EntryLevelWarning:
		m.Level = driver.LevelWarn
	case log.EntryLevelVerbose:
		m.Level = driver.LevelDebug
	default:
		m.Level = driver.LevelInfo
	}
	m.Text, m.Truncated = consolefmt.Cap(e.Text, driver.ConsoleFullChars)
	m.URL, m.Line, m.Stack = stackInfo(e.StackTrace)
	if m.URL == "" && e.URL != "" {
		m.URL, _ = consolefmt.Cap(e.URL, consoleURLChars)
		if e.LineNumber > 0 {
			m.Line = int(e.LineNumber) + 1
		}
	}
	return m
}

// isFaviconMiss reports the browser's own favicon request failing, which
// every page of a server without one would otherwise log as an error.
func isFaviconMiss(e *log.Entry) bool {
	if e.Source != log.EntrySourceNetwork {
		return false
	}
	u, err := url.Parse(e.URL)
	return err == nil && u.Path == "/favicon.ico"
}

// stackInfo returns the location of the top frame and the top frames.
func stackInfo(st *runtime.StackTrace) (where string, line int, frames []string) {
	if st == nil || len(st.CallFrames) == 0 {
		return "", 0, nil
	}
	top := st.CallFrames[0]
	if top.URL != "" { // evaluated code has neither URL nor useful line
		where, _ = consolefmt.Cap(top.URL, consoleURLChars)
		line = int(top.LineNumber) + 1
	}
	for _, f := range st.CallFrames[:min(len(st.CallFrames), consoleFrames)] {
		name := f.FunctionName
		if name == "" {
			name = "(anonymous)"
		}
		u, _ := consolefmt.Cap(f.URL, consoleURLChars)
		frames = append(frames, fmt.Sprintf("%s %s:%d:%d", name, u, f.LineNumber+1, f.ColumnNumber+1))
	}
	return where, line, frames
}

// cdpTime converts a Runtime timestamp, in milliseconds since the epoch.
func cdpTime(ts runtime.Timestamp) time.Time {
	if ts <= 0 {
		return time.Now()
	}
	return time.UnixMicro(int64(float64(ts) * 1000))
}
