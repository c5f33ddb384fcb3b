package input

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
)

// describe renders events as "type:key:text:mods" for compact comparison.
func describe(evs []*input.DispatchKeyEventParams) string {
	var parts []string
	for _, e := range evs {
		parts = append(parts, fmt.Sprintf("%s:%s:%s:%d", e.Type, e.Key, strings.ReplaceAll(e.Text, "\r", `\r`), e.Modifiers))
	}
	return strings.Join(parts, " ")
}

func TestCombos(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"Enter", `keyDown:Enter:\r:0 keyUp:Enter::0`},
		{"enter", `keyDown:Enter:\r:0 keyUp:Enter::0`},
		{"Return", `keyDown:Enter:\r:0 keyUp:Enter::0`},
		{"Tab", `keyDown:Tab::0 keyUp:Tab::0`},
		{"a", `keyDown:a:a:0 keyUp:a::0`},
		{"ArrowLeft", `keyDown:ArrowLeft::0 keyUp:ArrowLeft::0`},
		{"F5", `keyDown:F5::0 keyUp:F5::0`},
		{"Escape", `keyDown:Escape::0 keyUp:Escape::0`},
		{"Space", `keyDown: : :0 keyUp: ::0`},
		{"Control+a", `keyDown:Control::2 keyDown:a::2 keyUp:a::2 keyUp:Control::0`},
		{"Control+A", `keyDown:Control::2 keyDown:a::2 keyUp:a::2 keyUp:Control::0`},
		{"Shift+a", `keyDown:Shift::8 keyDown:A:A:8 keyUp:A::8 keyUp:Shift::0`},
		{"Control+Shift+R", `keyDown:Control::2 keyDown:Shift::10 keyDown:R::10 keyUp:R::10 keyUp:Shift::2 keyUp:Control::0`},
		{"Ctrl+Plus", `keyDown:Control::2 keyDown:+::10 keyUp:+::10 keyUp:Control::0`}, // + is Shift+= on a US layout
		{"Control++", `keyDown:Control::2 keyDown:+::10 keyUp:+::10 keyUp:Control::0`},
		{"+", `keyDown:+:+:8 keyUp:+::8`},
		{"Shift", `keyDown:Shift::0 keyUp:Shift::0`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := ParseCombo(tt.in)
			if err != nil {
				t.Fatalf("ParseCombo(%q): %v", tt.in, err)
			}
			if got := describe(c.Events()); got != tt.want {
				t.Errorf("ParseCombo(%q).Events() =\n  %s\nwant\n  %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	for _, in := range []string{"", "Hyperdrive", "Control+Nope", "Foo+a", "Control+"} {
		if _, err := ParseCombo(in); !errors.Is(err, ErrKeyNotSupported) {
			t.Errorf("ParseCombo(%q) = %v, want ErrKeyNotSupported", in, err)
		}
	}
}

func TestTypeEvents(t *testing.T) {
	got := describe(TypeEvents("hé😀\n"))
	want := `keyDown:h:h:0 keyUp:h::0 keyDown:Unidentified:é:0 keyUp:Unidentified::0 ` +
		`keyDown:Unidentified:😀:0 keyUp:Unidentified::0 keyDown:Enter:\r:0 keyUp:Enter::0`
	if got != want {
		t.Errorf("TypeEvents =\n  %s\nwant\n  %s", got, want)
	}
}
