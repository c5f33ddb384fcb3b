// Package input turns what an agent asks for — a key name, a combo such as
// "Control+Shift+R", a string to type — into CDP input events. It is pure
// logic; internal/browser dispatches the events. Key tables come from
// chromedp's kb package, generated from Chromium's.
package input

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"
)

// ErrKeyNotSupported means a key name is not one cdpkit knows.
var ErrKeyNotSupported = errors.New("input: key not supported")

// KeyError names the unknown key.
type KeyError struct{ Key string }

func (e *KeyError) Error() string { return fmt.Sprintf("input: key %q is not supported", e.Key) }
func (e *KeyError) Unwrap() error { return ErrKeyNotSupported }

// Modifier bits of Input.dispatchKeyEvent and dispatchMouseEvent.
const (
	ModAlt   int64 = 1
	ModCtrl  int64 = 2
	ModMeta  int64 = 4
	ModShift int64 = 8
)

// modifierKeys maps modifier names (lower case) to their bit and kb rune.
var modifierKeys = map[string]struct {
	bit  int64
	rune rune
}{
	"alt": {ModAlt, []rune(kb.Alt)[0]}, "option": {ModAlt, []rune(kb.Alt)[0]},
	"control": {ModCtrl, []rune(kb.Control)[0]}, "ctrl": {ModCtrl, []rune(kb.Control)[0]},
	"meta": {ModMeta, []rune(kb.Meta)[0]}, "cmd": {ModMeta, []rune(kb.Meta)[0]}, "command": {ModMeta, []rune(kb.Meta)[0]},
	"shift": {ModShift, []rune(kb.Shift)[0]},
}

// aliases are other names agents use for keys.
var aliases = map[string]string{
	"esc": "escape", "return": "enter", "del": "delete", "up": "arrowup", "down": "arrowdown",
	"left": "arrowleft", "right": "arrowright", "pgup": "pageup", "pgdn": "pagedown", "ins": "insert",
}

// named maps lower-case DOM key names ("arrowleft", "f5") to kb runes.
var named = func() map[string]rune {
	m := make(map[string]rune)
	for r, k := range kb.Keys {
		if k.Print && utf8.RuneCountInString(k.Key) == 1 {
			continue // printable characters are typed by themselves
		}
		name := strings.ToLower(k.Key)
		if old, ok := m[name]; !ok || r < old { // deterministic: lowest rune wins
			m[name] = r
		}
	}
	m["enter"] = '\r'
	m["space"] = ' '
	m["plus"] = '+'
	return m
}()

// Combo is a key with the modifiers held while it is pressed.
type Combo struct {
	Modifiers int64  // ModAlt|ModCtrl|ModMeta|ModShift
	mods      []rune // modifier keys, in the order they go down
	key       rune
}

// ParseCombo parses "Enter", "a", "Control+Shift+R", "Meta+ArrowLeft",
// "Control++" (the plus key). Names are case-insensitive.
func ParseCombo(s string) (Combo, error) {
	if s == "" {
		return Combo{}, &KeyError{Key: s}
	}
	var parts []string
	if strings.HasSuffix(s, "++") {
		parts = append(strings.Split(strings.TrimSuffix(s, "++"), "+"), "+")
	} else if s == "+" {
		parts = []string{"+"}
	} else {
		parts = strings.Split(s, "+")
	}
	var c Combo
	for i, p := range parts {
		last := i == len(parts)-1
		if m, ok := modifierKeys[strings.ToLower(p)]; ok && !last {
			c.Modifiers |= m.bit
			c.mods = append(c.mods, m.rune)
			continue
		}
		if !last {
			return Combo{}, &KeyError{Key: s}
		}
		r, err := keyRune(p)
		if err != nil {
			return Combo{}, err
		}
		c.key = r
	}
	return c, nil
}

// keyRune resolves one key name or character.
func keyRune(name string) (rune, error) {
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		return r, nil
	}
	l := strings.ToLower(name)
	if a, ok := aliases[l]; ok {
		l = a
	}
	if m, ok := modifierKeys[l]; ok {
		return m.rune, nil
	}
	if r, ok := named[l]; ok {
		return r, nil
	}
	return 0, &KeyError{Key: name}
}

// Events returns the key events for pressing the combo: each modifier
// down, the key down and up (with a char event when it types text and no
// command modifier is held), then the modifiers up in reverse.
func (c Combo) Events() []*input.DispatchKeyEventParams {
	var out []*input.DispatchKeyEventParams
	var held int64
	for _, m := range c.mods {
		held |= modifierBit(m)
		ev := keyEvent(m, held)
		ev.Type = kb.KeyDown
		out = append(out, ev)
	}
	key := c.key
	switch {
	case held&ModShift != 0 && key >= 'a' && key <= 'z':
		key = key - 'a' + 'A' // Shift+a types "A"
	case held&ModShift == 0 && held != 0 && key >= 'A' && key <= 'Z':
		key = key - 'A' + 'a' // Control+A means the A key, not Control+Shift+A
	}
	for _, ev := range kb.Encode(key) {
		ev.Modifiers |= held
		if ev.Type == kb.KeyChar && held&(ModCtrl|ModAlt|ModMeta) != 0 {
			continue // Control+A selects; it does not type "a"
		}
		out = append(out, ev)
	}
	for i := len(c.mods) - 1; i >= 0; i-- {
		ev := keyEvent(c.mods[i], held)
		held &^= modifierBit(c.mods[i])
		ev.Modifiers = held
		ev.Type = kb.KeyUp
		out = append(out, ev)
	}
	return textInKeyDown(out)
}

// textInKeyDown folds kb's keyDown, char and keyUp for a key that types
// text into a keyDown that carries the text and a keyUp, as Chromium's
// own keyboard events come: the renderer fires keypress and inserts the
// text from that keyDown only when no keydown listener cancelled it. A
// char event of its own typed the text even after a cancelled keydown,
// and cost a round trip more.
func textInKeyDown(evs []*input.DispatchKeyEventParams) []*input.DispatchKeyEventParams {
	out := evs[:0]
	for _, ev := range evs {
		if n := len(out); ev.Type == kb.KeyChar && n > 0 && out[n-1].Type == kb.KeyDown && out[n-1].Text == "" {
			out[n-1].Text, out[n-1].UnmodifiedText = ev.Text, ev.UnmodifiedText
			continue
		}
		out = append(out, ev)
	}
	return out
}

func modifierBit(r rune) int64 {
	for _, m := range modifierKeys {
		if m.rune == r {
			return m.bit
		}
	}
	return 0
}

func keyEvent(r rune, mods int64) *input.DispatchKeyEventParams {
	k := kb.Keys[r]
	return &input.DispatchKeyEventParams{
		Key: k.Key, Code: k.Code, WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native, Modifiers: mods,
	}
}

// TypeEvents returns the key events that type s character by character:
// a keyDown carrying the character's text and a keyUp each (see
// textInKeyDown). Characters with no key (emoji, most scripts) are sent as
// "Unidentified" keys carrying their text.
func TypeEvents(s string) []*input.DispatchKeyEventParams {
	var out []*input.DispatchKeyEventParams
	for _, r := range s {
		out = append(out, kb.Encode(r)...)
	}
	return textInKeyDown(out)
}
