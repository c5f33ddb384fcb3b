package consolefmt

import (
	"fmt"
	"strings"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// jsValue returns a RemoteObject of a primitive, as the browser sends it.
func jsValue(typ runtime.RemoteObjectType, value string) *runtime.RemoteObject {
	return &runtime.RemoteObject{Type: typ, Value: jsonv2.Value(value)}
}

func TestFormatArgs(t *testing.T) {
	str := func(s string) *runtime.RemoteObject { return jsValue("string", fmt.Sprintf("%q", s)) }
	num := func(s string) *runtime.RemoteObject { return jsValue("number", s) }
	tests := []struct {
		name    string
		args    []*runtime.RemoteObject
		limit   int
		want    string
		wantCut bool
	}{
		{name: "none", args: nil, limit: 100, want: ""},
		{name: "primitives", limit: 100, want: "a 1 true null undefined NaN 5n",
			args: []*runtime.RemoteObject{
				str("a"), num("1"), jsValue("boolean", "true"),
				{Type: "object", Subtype: "null", Value: jsonv2.Value("null")},
				{Type: "undefined"},
				{Type: "number", UnserializableValue: "NaN"},
				{Type: "bigint", UnserializableValue: "5n"},
			}},
		{name: "format verbs", limit: 100, want: "cart has 3 items at 2.5 100% extra",
			args: []*runtime.RemoteObject{str("%s has %d items%c at %f 100%%"), str("cart"), num("3.9"), str("color: red"), num("2.5"), str("extra")}},
		{name: "verb without an argument stays", limit: 100, want: "%s and %d",
			args: []*runtime.RemoteObject{str("%s and %d")}},
		{name: "object preview", limit: 100, want: `{a: 1, b: "x", f: ƒ}`,
			args: []*runtime.RemoteObject{{Type: "object", Description: "Object", Preview: &runtime.ObjectPreview{
				Type: "object", Description: "Object", Properties: []*runtime.PropertyPreview{
					{Name: "a", Type: "number", Value: "1"}, {Name: "b", Type: "string", Value: "x"}, {Name: "f", Type: "function"},
				}}}}},
		{name: "array preview with overflow", limit: 100, want: "[1, 2, …]",
			args: []*runtime.RemoteObject{{Type: "object", Subtype: "array", Description: "Array(200)", Preview: &runtime.ObjectPreview{
				Type: "object", Subtype: "array", Description: "Array(200)", Overflow: true, Properties: []*runtime.PropertyPreview{
					{Name: "0", Type: "number", Value: "1"}, {Name: "1", Type: "number", Value: "2"},
				}}}}},
		{name: "map preview", limit: 100, want: `Map(1) {"k" => 2}`,
			args: []*runtime.RemoteObject{{Type: "object", Subtype: "map", Description: "Map(1)", Preview: &runtime.ObjectPreview{
				Type: "object", Subtype: "map", Description: "Map(1)", Entries: []*runtime.EntryPreview{
					{Key: &runtime.ObjectPreview{Type: "string", Description: "k"}, Value: &runtime.ObjectPreview{Type: "number", Description: "2"}},
				}}}}},
		{name: "error keeps its description", limit: 100, want: "Error: boom\n    at f (x.js:1:1)",
			args: []*runtime.RemoteObject{{Type: "object", Subtype: "error", Description: "Error: boom\n    at f (x.js:1:1)"}}},
		{name: "function shows its first line", limit: 100, want: "function f() {",
			args: []*runtime.RemoteObject{{Type: "function", Description: "function f() {\n  return 1\n}"}}},
		{name: "cut at the limit", limit: 5, want: "abcde", wantCut: true,
			args: []*runtime.RemoteObject{str("abcdefgh")}},
		{name: "later args get the room left", limit: 6, want: "abc de", wantCut: true,
			args: []*runtime.RemoteObject{str("abc"), str("def"), str("ghi")}},
		{name: "cut counts characters, not bytes", limit: 3, want: "ééé", wantCut: true,
			args: []*runtime.RemoteObject{str("éééé")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Args(tt.args, tt.limit)
			if got != tt.want || cut != tt.wantCut {
				t.Errorf("Args = %q, cut %v; want %q, cut %v", got, cut, tt.want, tt.wantCut)
			}
		})
	}
}

func TestArg(t *testing.T) {
	tests := []struct {
		name    string
		obj     *runtime.RemoteObject
		limit   int
		want    string
		wantCut bool
	}{
		{name: "nil is undefined", obj: nil, limit: 100, want: "undefined"},
		{name: "string is unquoted", obj: jsValue("string", `"hi"`), limit: 100, want: "hi"},
		{name: "infinity", obj: &runtime.RemoteObject{Type: "number", UnserializableValue: "-Infinity"}, limit: 100, want: "-Infinity"},
		{name: "date keeps its description", obj: &runtime.RemoteObject{Type: "object", Subtype: "date", Description: "Tue Jan 02 2024"}, limit: 100, want: "Tue Jan 02 2024"},
		{name: "node keeps its description", obj: &runtime.RemoteObject{Type: "object", Subtype: "node", Description: "div#main"}, limit: 100, want: "div#main"},
		{name: "object by value", obj: &runtime.RemoteObject{Type: "object", Value: jsonv2.Value(`{"a":1}`)}, limit: 100, want: `{"a":1}`},
		{name: "object without preview or value", obj: &runtime.RemoteObject{Type: "object", Description: "Window"}, limit: 100, want: "Window"},
		{name: "symbol", obj: &runtime.RemoteObject{Type: "symbol", Description: "Symbol(x)"}, limit: 100, want: "Symbol(x)"},
		{name: "named class preview", limit: 100, want: `Point {x: 1, get: (...)}`,
			obj: &runtime.RemoteObject{Type: "object", Description: "Point", Preview: &runtime.ObjectPreview{
				Type: "object", Description: "Point", Properties: []*runtime.PropertyPreview{
					{Name: "x", Type: "number", Value: "1"}, {Name: "get", Type: "accessor"},
				}}}},
		{name: "typed array preview", limit: 100, want: `Uint8Array(2) {1, 2}`,
			obj: &runtime.RemoteObject{Type: "object", Subtype: "typedarray", Description: "Uint8Array(2)", Preview: &runtime.ObjectPreview{
				Type: "object", Subtype: "typedarray", Description: "Uint8Array(2)", Properties: []*runtime.PropertyPreview{
					{Name: "0", Type: "number", Value: "1"}, {Name: "1", Type: "number", Value: "2"},
				}}}},
		{name: "zero limit cuts everything", obj: jsValue("string", `"x"`), limit: 0, want: "", wantCut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Arg(tt.obj, tt.limit)
			if got != tt.want || cut != tt.wantCut {
				t.Errorf("Arg = %q, cut %v; want %q, cut %v", got, cut, tt.want, tt.wantCut)
			}
		})
	}
}

func TestNumberVerbs(t *testing.T) {
	tests := []struct {
		name string
		args []*runtime.RemoteObject
		want string
	}{
		{name: "%d truncates", args: []*runtime.RemoteObject{jsValue("string", `"%d"`), jsValue("number", "-2.7")}, want: "-2"},
		{name: "%i of a string is NaN", args: []*runtime.RemoteObject{jsValue("string", `"%i"`), jsValue("string", `"7"`)}, want: "NaN"},
		{name: "%f keeps the fraction", args: []*runtime.RemoteObject{jsValue("string", `"%f"`), jsValue("number", "0.125")}, want: "0.125"},
		{name: "%d of NaN", args: []*runtime.RemoteObject{jsValue("string", `"%d"`), {Type: "number", UnserializableValue: "NaN"}}, want: "NaN"},
		{name: "unknown verb stays", args: []*runtime.RemoteObject{jsValue("string", `"%x"`), jsValue("number", "1")}, want: "%x 1"},
		{name: "trailing percent", args: []*runtime.RemoteObject{jsValue("string", `"50%"`), jsValue("number", "1")}, want: "50% 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := Args(tt.args, 100); got != tt.want {
				t.Errorf("Args = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCap(t *testing.T) {
	tests := []struct {
		s       string
		n       int
		want    string
		wantCut bool
	}{
		{"", 0, "", false},
		{"abc", 0, "", true},
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"日本語です", 3, "日本語", true},
		{"日本語", 3, "日本語", false},
		{strings.Repeat("é", 10), 10, strings.Repeat("é", 10), false},
	}
	for _, tt := range tests {
		got, cut := Cap(tt.s, tt.n)
		if got != tt.want || cut != tt.wantCut {
			t.Errorf("Cap(%q, %d) = %q, %v; want %q, %v", tt.s, tt.n, got, cut, tt.want, tt.wantCut)
		}
	}
}
