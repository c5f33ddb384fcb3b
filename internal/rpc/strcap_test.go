package rpc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
)

func TestCapStrings(t *testing.T) {
	sc := StringCap{Each: 8, Total: 20, Rest: 3}
	for _, c := range []struct{ in, want string }{
		{`{"a":"short"}`, `{"a":"short"}`},
		{`{"a":"0123456789abc"}`, `{"a":"01234567"}`},
		// Kept strings count toward Total: past it, strings are cut to Rest.
		{`["0123456789","0123456789","0123456789","0123456789"]`, `["01234567","01234567","01234567","012"]`},
		// An escape is never split.
		{`"0123456\n89"`, `"0123456"`},
		{`"012\u00e9456789"`, `"012"`},
		{`"01\u00e9456789"`, `"01\u00e9"`},
		// Nor a UTF-8 sequence.
		{`"0123456é89"`, `"0123456"`},
		// Nor a surrogate pair: both halves or neither.
		{`"01\ud83d\ude00abc"`, `"01"`},
		{`"\ud83d\ude00abcdef"`, `""`},
		// Quotes escaped inside a string do not end it; names are not cut.
		{`{"k\"ey":"a\"bcdefghijk","n":12}`, `{"k\"ey":"a\"bcdef","n":12}`},
		{`{"a-long-name" : "0123456789"}`, `{"a-long-name" : "01234567"}`},
	} {
		if got := string(capStrings([]byte(c.in), sc)); got != c.want {
			t.Errorf("capStrings(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestTopLevelID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{`{"id":12,"result":{}}`, 12, true},
		{` { "type" : "success", "result": {"id": 3, "s": "x\"}"}, "id" : 7 }`, 7, true},
		{`{"method":"X","params":{"id":4}}`, 0, false},
		{`{"id":"x"}`, 0, false},
		{`[1]`, 0, false},
		{`{"id`, 0, false},
	} {
		id, ok := topLevelID([]byte(c.in))
		if id != c.want || ok != c.ok {
			t.Errorf("topLevelID(%s) = %d, %v, want %d, %v", c.in, id, ok, c.want, c.ok)
		}
	}
}

// FuzzCapStrings checks that cutting the strings of valid JSON leaves
// valid JSON whose strings are within their caps and prefixes of the
// originals, and whose other values are the same.
func FuzzCapStrings(f *testing.F) {
	for _, s := range []string{`{"a":"0123456789"}`, `["\ud83d\ude00\ud83d\ude00", "é\u00e9\n", 1, null, {"x":[true]}]`, `"\\\\\\\""`} {
		f.Add(s, 4, 10, 2)
	}
	f.Fuzz(func(t *testing.T, in string, each, total, rest int) {
		if !json.Valid([]byte(in)) || !utf8.ValidString(in) {
			return
		}
		var orig any
		if jsonv2.Unmarshal([]byte(in), &orig) != nil {
			return // lone surrogates and duplicate names jsonv2 refuses
		}
		sc := StringCap{Each: max(each%64, 0), Total: max(total%256, 0), Rest: max(rest%64, 0)}
		out := capStrings([]byte(in), sc)
		var got any
		if err := jsonv2.Unmarshal(out, &got); err != nil {
			t.Fatalf("capStrings(%q, %+v) = %q: %v", in, sc, out, err)
		}
		if len(out) > len(in) {
			t.Fatalf("capStrings grew %q to %q", in, out)
		}
		compare(t, orig, got, max(sc.Each, sc.Rest))
	})
}

// compare checks that got is want with its strings cut to prefixes no
// longer (as raw JSON) than each.
func compare(t *testing.T, want, got any, each int) {
	t.Helper()
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		if !ok || !strings.HasPrefix(w, g) {
			t.Fatalf("string %q became %v", w, got)
		}
		if raw, _ := jsonv2.Marshal(g); g != w && len(raw) > 2+each*6 {
			t.Fatalf("string %q cut to %q, longer than %d", w, g, each)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Fatalf("array %v became %v", w, got)
		}
		for i := range w {
			compare(t, w[i], g[i], each)
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			t.Fatalf("object %v became %v", w, got)
		}
		for k := range w {
			compare(t, w[k], g[k], each)
		}
	default:
		if want != got {
			t.Fatalf("%v became %v", want, got)
		}
	}
}

// TestCallCapsItsReply checks that a call made with a cap gets its reply
// cut before the protocol handles it, and that other calls do not.
func TestCallCapsItsReply(t *testing.T) {
	p := newPipe()
	var c *Core
	c = New(p, Options{
		Name:         "test",
		Timeout:      func(method string, took time.Duration) error { return errTimeout },
		Disconnected: func(method string, cause error) error { return errGone },
		Handle: func(msg []byte) {
			id, _ := topLevelID(msg)
			c.Mu.Lock()
			cl := c.TakeLocked(id)
			c.Mu.Unlock()
			if cl != nil {
				cl.Resolve(msg, nil)
			}
		},
	})
	c.Start()
	defer c.Close(errors.New("test over"))
	long := strings.Repeat("x", capFrom+10)
	for _, capped := range []bool{true, false} {
		ctx := t.Context()
		if capped {
			ctx = WithStringCap(ctx, StringCap{Each: 5, Total: 100, Rest: 5})
		}
		got := make(chan string, 1)
		go func() {
			res, err := c.Call(ctx, "m", &request{})
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(res)
		}()
		id := string(<-p.sent)
		p.in <- []byte(`{"id":` + id + `,"result":{"s":"` + long + `"}}`)
		want := `{"id":` + id + `,"result":{"s":"` + long + `"}}`
		if capped {
			want = `{"id":` + id + `,"result":{"s":"xxxxx"}}`
		}
		if g := <-got; g != want {
			t.Errorf("capped %v: reply %.80s (%d bytes), want %.80s (%d bytes)", capped, g, len(g), want, len(want))
		}
	}
}
