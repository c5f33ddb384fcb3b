package mcpserver

import "testing"

// TestResponseID pins which outgoing lines answer a request: those with
// an id and no method, whatever the order of their members.
func TestResponseID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, want string // want "" means not a response
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}]}}`, "3"},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"no"}}`, `"a"`},
		{`{"jsonrpc":"2.0","result":{},"id":7}`, "7"},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`, "null"},
		{`{"jsonrpc":"2.0","id":4,"method":"roots/list"}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, ""},
		{`{"jsonrpc":"2.0","result":{},"method":"x","id":1}`, ""},
		{`[1,2]`, ""},
		{`not json`, ""},
	} {
		if got := string(responseID([]byte(tc.line))); got != tc.want {
			t.Errorf("responseID(%s) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
