package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Console listing pages.
const (
	defaultPageSize = 50
	maxPageSize     = 200
)

type listConsoleArgs struct {
	Target   string   `json:"target,omitempty"`
	Types    []string `json:"types,omitempty" jsonschema:"log, info, warn, error, debug"`
	PageSize int      `json:"pageSize,omitempty" jsonschema:"default 50"`
	PageIdx  int      `json:"pageIdx,omitempty" jsonschema:"0 = oldest"`
	Clear    bool     `json:"clear,omitempty" jsonschema:"forget after reading"`
	Preserve *bool    `json:"preserve,omitempty" jsonschema:"keep across navigations"`

	levels []string // by check
}

type getConsoleArgs struct {
	Target string `json:"target,omitempty"`
	MsgID  int    `json:"msgid" jsonschema:"message id: the N of #N in list_console_messages"`
}

type getURLArgs struct {
	Target string `json:"target,omitempty"`
}

type getTextArgs struct {
	Target   string `json:"target,omitempty"`
	UID      string `json:"uid,omitempty" jsonschema:"ref (e12)"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector"`
	MaxChars int    `json:"maxChars,omitempty" jsonschema:"default 24000"`
}

func readTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "list_console_messages",
			Description: "Console messages, exceptions and browser errors, oldest first. Cleared on navigation unless preserve.",
			ReadOnly:    true,
			Core:        true,
		}, listConsoleMessages),
		defineOn(Tool{
			Name:        "get_console_message",
			Description: "One console message by id, whole (up to 20000 chars), with its location and stack.",
			ReadOnly:    true,
			Idempotent:  true,
		}, getConsoleMessage),
		defineOn(Tool{
			Name:        "get_url",
			Description: "A tab's current url, title and document.readyState.",
			ReadOnly:    true,
			Idempotent:  true,
			Verbs:       []Verb{{Name: "get url", Summary: "print the tab's url, title and readyState", Rank: 17}},
		}, getURL),
		defineOn(Tool{
			Name:        "get_text",
			Description: "Visible text of the page or an element; a field's value, never a password's.",
			ReadOnly:    true,
			Idempotent:  true,
			Core:        true,
			Verbs:       []Verb{{Name: "get text", Args: []string{"uid:ref?"}, Summary: "print the visible text of the page, or of an element", Rank: 16}},
		}, getText),
	}
}

type consoleHeader struct {
	Total     int    `json:"total"`
	Returned  int    `json:"returned"`
	PageIdx   int    `json:"pageIdx"`
	Pages     int    `json:"pages"`
	Truncated bool   `json:"truncated"` // other pages hold more messages
	Hint      string `json:"hint,omitempty"`
}

// levelAliases maps the names accepted in types to levels.
var levelAliases = map[string]string{"warning": driver.LevelWarn, "verbose": driver.LevelDebug}

func (in *listConsoleArgs) check(context.Context, *Env) error {
	if in.PageSize < 0 || in.PageSize > maxPageSize || in.PageIdx < 0 {
		return errorf(InvalidArgs, false, fmt.Sprintf("pageSize is 1 to %d, pageIdx 0 or more", maxPageSize),
			"pageSize %d or pageIdx %d is out of range", in.PageSize, in.PageIdx)
	}
	for _, t := range in.Types {
		l := strings.ToLower(strings.TrimSpace(t))
		if a, ok := levelAliases[l]; ok {
			l = a
		}
		if !slices.Contains(driver.ConsoleLevels, l) {
			return errorf(InvalidArgs, false, "types are "+strings.Join(driver.ConsoleLevels, ", "), "unknown message type %q", t)
		}
		in.levels = append(in.levels, l)
	}
	return nil
}

func listConsoleMessages(ctx context.Context, env *Env, d *door, in listConsoleArgs) (*Result, error) {
	levels := in.levels
	con, err := role[driver.Console](env, d.tab, "the console log")
	if err != nil {
		return nil, err
	}
	size := in.PageSize
	if size == 0 {
		size = defaultPageSize
	}
	if in.Preserve != nil {
		con.SetConsolePreserve(*in.Preserve)
	}
	msgs, total, err := con.ConsoleMessages(ctx, driver.ConsoleQuery{Levels: levels, Offset: in.PageIdx * size, Limit: size, Clear: in.Clear})
	if err != nil {
		return nil, err
	}
	h := consoleHeader{Total: total, Returned: len(msgs), PageIdx: in.PageIdx, Pages: (total + size - 1) / size}
	h.Truncated = len(msgs) < total
	var b strings.Builder
	cut := 0
	for _, m := range msgs {
		b.WriteString(consoleLine(m))
		b.WriteByte('\n')
		if m.Truncated {
			cut = m.ID
		}
	}
	var hints []string
	if h.Truncated {
		hints = append(hints, fmt.Sprintf("pageIdx 0-%d pages through all", h.Pages-1))
	}
	if cut != 0 {
		hints = append(hints, fmt.Sprintf("lines ending in … are cut; get_console_message msgid=%d gives one whole", cut))
	}
	h.Hint = strings.Join(hints, "; ")
	return &Result{Data: h, Text: b.String()}, nil
}

// consoleLine renders a message as one line: `#12 error page.js:3 text`,
// with [source] for what the browser logged itself and newlines escaped.
func consoleLine(m driver.ConsoleMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s", m.ID, m.Level)
	if m.Source != "console" && m.Source != "exception" {
		b.WriteString(" [" + m.Source + "]")
	}
	if where := shortLocation(m.URL, m.Line); where != "" {
		b.WriteString(" " + where)
	}
	b.WriteString(" " + strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(m.Text))
	if m.Truncated {
		b.WriteString("…")
	}
	return b.String()
}

// shortLocation names a script by its file name (or host), with the line.
func shortLocation(raw string, line int) string {
	if raw == "" {
		return ""
	}
	name := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		name = u.Host
		if base := path.Base(u.Path); base != "." && base != "/" {
			name = base
		}
	}
	if r := []rune(name); len(r) > 40 {
		name = string(r[:40]) + "…"
	}
	if line > 0 {
		name += ":" + strconv.Itoa(line)
	}
	return name
}

type consoleMessageHeader struct {
	ID        int      `json:"id"`
	Level     string   `json:"level"`
	Source    string   `json:"source"`
	Type      string   `json:"type,omitempty"`
	URL       string   `json:"url,omitempty"`
	Line      int      `json:"line,omitempty"`
	Time      string   `json:"time"`
	Chars     int      `json:"chars"`
	Truncated bool     `json:"truncated,omitempty"`
	Stack     []string `json:"stack,omitempty"`
}

func (in *getConsoleArgs) check(context.Context, *Env) error {
	if in.MsgID <= 0 {
		return errorf(InvalidArgs, false, "use an id from list_console_messages", "msgid must be 1 or more")
	}
	return nil
}

func getConsoleMessage(ctx context.Context, env *Env, d *door, in getConsoleArgs) (*Result, error) {
	con, err := role[driver.Console](env, d.tab, "the console log")
	if err != nil {
		return nil, err
	}
	m, err := con.ConsoleMessage(ctx, in.MsgID)
	var ce *driver.ConsoleMessageError
	switch {
	case errors.As(err, &ce) && ce.Gone:
		return nil, errorf(InvalidArgs, false, "the tab keeps its last 500 messages and clears them on navigation; call list_console_messages",
			"console message %d was cleared or dropped", in.MsgID)
	case errors.As(err, &ce):
		return nil, errorf(InvalidArgs, false, "use an id from list_console_messages for this tab", "no console message %d in this tab", in.MsgID)
	case err != nil:
		return nil, err
	}
	h := consoleMessageHeader{
		ID: m.ID, Level: m.Level, Source: m.Source, Type: m.Type, URL: m.URL, Line: m.Line,
		Time: m.Time.UTC().Format("2006-01-02T15:04:05.000Z"), Chars: len([]rune(m.Text)), Truncated: m.Truncated, Stack: m.Stack,
	}
	return &Result{Data: h, Text: m.Text}, nil
}

func getURL(ctx context.Context, _ *Env, d *door, in getURLArgs) (*Result, error) {
	st, err := d.tab.DocumentState(ctx)
	if err != nil {
		return nil, err
	}
	return &Result{Data: st}, nil
}

// uncheckedNote explains an answer whose hidden-text check stopped short.
const uncheckedNote = "the page has too many elements (or too much hidden) to check all for hidden text: what was not checked is left out; read a part by uid, selector or scope"

type textHeader struct {
	Chars     int    `json:"chars"`
	Truncated bool   `json:"truncated"`
	Field     string `json:"field,omitempty"`
	// Unchecked says the hidden-text check stopped short on a page too
	// large or with too much hidden, and left out what it did not check.
	Unchecked bool   `json:"hiddenCheckIncomplete,omitempty"`
	Note      string `json:"note,omitempty"`
}

func (in *getTextArgs) check(context.Context, *Env) error {
	if err := oneElement(in.UID, in.Selector); err != nil {
		return err
	}
	if in.MaxChars < 0 {
		return errorf(InvalidArgs, false, "use 0 or more", "maxChars must not be negative")
	}
	return nil
}

func getText(ctx context.Context, _ *Env, d *door, in getTextArgs) (*Result, error) {
	res, err := d.tab.Text(ctx, driver.TextOptions{Ref: in.UID, Selector: in.Selector, MaxChars: ceilChars(in.MaxChars)})
	if err != nil {
		return nil, err
	}
	h := textHeader{Chars: res.Chars, Truncated: res.Truncated, Field: res.Field, Unchecked: res.Unchecked}
	switch {
	case res.Password:
		h.Note = "password fields are never read"
	case res.Unchecked:
		h.Note = uncheckedNote
	case res.Truncated:
		h.Note = "cut at maxChars; raise it, or read one element by uid or selector"
	}
	return &Result{Data: h, Text: res.Text}, nil
}
