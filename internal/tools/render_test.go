package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResultEncode pins both forms of a result: the text lines and the
// structure, which Encode writes from the encoded data without decoding
// it into maps.
func TestResultEncode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		res  Result
		text string
		want string // the structure, as JSON
	}{
		{"empty", Result{}, "", `{}`},
		{"plain value", Result{Data: 7}, "result: 7", `{"result":7}`},
		{"object", Result{Data: map[string]any{"url": "http://a/?q=<b>&c", "n": 2}},
			"n: 2\nurl: http://a/?q=<b>&c", `{"n":2,"url":"http://a/?q=<b>&c"}`},
		{"changes", Result{Data: map[string]any{"title": "T", "changes": map[string]any{"url": "u", "elements": "+ e1 link\n- e2 button\n"}}},
			"url: u\ntitle: T\n\n+ e1 link\n- e2 button",
			`{"changes":{"elements":["+ e1 link","- e2 button"],"url":"u"},"title":"T"}`},
		{"text and reset", Result{Data: struct {
			URL  string `json:"url"`
			Text string `json:"text,omitempty"`
		}{"u", "old"}, Text: "- e1 link\n", SessionReset: true},
			"sessionReset: true\nurl: u\ntext: old\n\n- e1 link", `{"url":"u","text":"- e1 link\n","sessionReset":true}`},
		{"list of objects", Result{Data: map[string]any{"pages": []map[string]any{{"id": "A", "active": true}}}},
			"pages:\n- active: true, id: A", `{"pages":[{"active":true,"id":"A"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, raw, err := tc.res.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if text != tc.text {
				t.Errorf("text = %q, want %q", text, tc.text)
			}
			var got, want any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("structure %s is not JSON: %v", raw, err)
			}
			json.Unmarshal([]byte(tc.want), &want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("structure %s (-want +got):\n%s", raw, d)
			}
		})
	}
}
