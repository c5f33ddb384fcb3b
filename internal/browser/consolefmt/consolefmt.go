// Package consolefmt renders the values a page hands to its console —
// CDP remote objects and their previews — as text, the way the DevTools
// console shows them, within a character budget. It is pure: it needs no
// browser, so its tests run without Chromium.
package consolefmt

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// Args renders console arguments as the console shows them: a first
// string argument's %s, %d, %i, %f, %o, %O and %c take the next arguments,
// and the rest follow separated by spaces. The result is capped at limit
// chars; each argument is rendered within what room is left.
func Args(args []*runtime.RemoteObject, limit int) (string, bool) {
	var b strings.Builder
	room := limit
	cut := false
	write := func(s string, c bool) {
		s, c2 := Cap(s, room)
		b.WriteString(s)
		room -= utf8.RuneCountInString(s)
		cut = cut || c || c2
	}
	rest := args
	if len(args) > 0 && args[0] != nil && args[0].Type == runtime.RemoteObjectTypeString {
		var format string
		jsonv2.Unmarshal(args[0].Value, &format)
		rest = args[1:]
		if len(rest) == 0 || !strings.Contains(format, "%") {
			write(format, false)
		} else {
			var lit strings.Builder
			for i := 0; i < len(format); i++ {
				ch := format[i]
				if ch != '%' || i+1 == len(format) {
					lit.WriteByte(ch)
					continue
				}
				verb := format[i+1]
				if verb == '%' {
					lit.WriteByte('%')
					i++
					continue
				}
				if !strings.ContainsRune("sdifoOc", rune(verb)) || len(rest) == 0 {
					lit.WriteByte(ch)
					continue
				}
				i++
				arg := rest[0]
				rest = rest[1:]
				write(lit.String(), false)
				lit.Reset()
				switch verb {
				case 'c': // CSS: nothing to show
				case 'd', 'i':
					write(number(arg, true), false)
				case 'f':
					write(number(arg, false), false)
				default:
					write(Arg(arg, room))
				}
			}
			write(lit.String(), false)
		}
	}
	for i, arg := range rest {
		if room <= 0 {
			cut = true
			break
		}
		if i > 0 || b.Len() > 0 {
			write(" ", false)
		}
		write(Arg(arg, room))
	}
	return b.String(), cut
}

// number renders arg for %d/%i (integer) or %f.
func number(arg *runtime.RemoteObject, integer bool) string {
	if arg == nil || arg.Type != runtime.RemoteObjectTypeNumber {
		return "NaN"
	}
	if arg.UnserializableValue != "" {
		return string(arg.UnserializableValue)
	}
	var f float64
	if jsonv2.Unmarshal(arg.Value, &f) != nil {
		return "NaN"
	}
	if integer {
		f = math.Trunc(f)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Arg renders one console argument within limit chars.
func Arg(o *runtime.RemoteObject, limit int) (string, bool) {
	if o == nil {
		return Cap("undefined", limit)
	}
	var s string
	switch o.Type {
	case runtime.RemoteObjectTypeString:
		jsonv2.Unmarshal(o.Value, &s)
	case runtime.RemoteObjectTypeUndefined:
		s = "undefined"
	case runtime.RemoteObjectTypeNumber, runtime.RemoteObjectTypeBoolean, runtime.RemoteObjectTypeBigint:
		s = string(o.UnserializableValue)
		if s == "" {
			s = string(o.Value)
		}
	case runtime.RemoteObjectTypeFunction:
		s, _, _ = strings.Cut(o.Description, "\n")
	case runtime.RemoteObjectTypeObject:
		switch {
		case o.Subtype == runtime.RemoteObjectSubtypeNull:
			s = "null"
		case o.Subtype == runtime.RemoteObjectSubtypeError, o.Subtype == runtime.RemoteObjectSubtypeNode,
			o.Subtype == runtime.RemoteObjectSubtypeRegexp, o.Subtype == runtime.RemoteObjectSubtypeDate:
			s = o.Description
		case o.Preview != nil:
			s = preview(o.Preview)
		case len(o.Value) > 0:
			s = string(o.Value)
		default:
			s = o.Description
		}
	default:
		s = o.Description
	}
	return Cap(s, limit)
}

// preview renders an object preview one level deep, like
// `{a: 1, b: 'x'}` or `[1, 2, 3]`.
func preview(p *runtime.ObjectPreview) string {
	var b strings.Builder
	array := p.Subtype == runtime.ObjectPreviewSubtypeArray || p.Subtype == runtime.ObjectPreviewSubtypeTypedarray
	switch {
	case array && p.Subtype == runtime.ObjectPreviewSubtypeArray:
		b.WriteString("[")
	case array || (p.Description != "" && p.Description != "Object"):
		b.WriteString(p.Description + " {")
	default:
		b.WriteString("{")
	}
	n := 0
	sep := func() {
		if n > 0 {
			b.WriteString(", ")
		}
		n++
	}
	for _, e := range p.Entries {
		sep()
		if e.Key != nil {
			b.WriteString(previewValue(e.Key) + " => ")
		}
		if e.Value != nil {
			b.WriteString(previewValue(e.Value))
		}
	}
	for _, prop := range p.Properties {
		sep()
		if !array || !isIndex(prop.Name) {
			b.WriteString(prop.Name + ": ")
		}
		switch prop.Type {
		case runtime.PropertyPreviewTypeString:
			b.WriteString(strconv.Quote(prop.Value))
		case runtime.PropertyPreviewTypeFunction:
			b.WriteString("ƒ")
		case runtime.PropertyPreviewTypeAccessor:
			b.WriteString("(...)")
		default:
			b.WriteString(prop.Value)
		}
	}
	if p.Overflow {
		sep()
		b.WriteString("…")
	}
	if p.Subtype == runtime.ObjectPreviewSubtypeArray {
		b.WriteString("]")
	} else {
		b.WriteString("}")
	}
	return b.String()
}

func previewValue(p *runtime.ObjectPreview) string {
	if p.Type == runtime.ObjectPreviewTypeString {
		return strconv.Quote(p.Description)
	}
	return p.Description
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// Cap returns s cut to at most n characters, and whether it was cut.
func Cap(s string, n int) (string, bool) {
	if n <= 0 {
		return "", s != ""
	}
	if len(s) <= n {
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
