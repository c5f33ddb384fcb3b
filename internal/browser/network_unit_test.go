package browser

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCompileURLPattern(t *testing.T) {
	tests := []struct {
		pattern, url string
		want         bool
	}{
		{"*/api/users", "http://h:1/api/users", true},
		{"*/api/users", "http://h:1/api/users?x=1", false},
		{"*/api/users*", "http://h:1/api/users?x=1", true},
		{"http://h:1/a?c", "http://h:1/abc", true},
		{"http://h:1/a.c", "http://h:1/abc", false}, // . is literal in a glob
		{"re:/api/users(/\\d+)?$", "http://h/api/users/12", true},
		{"re:/api/users(/\\d+)?$", "http://h/api/users/x", false},
		{"*", "data:text/plain,x", true},
	}
	for _, tt := range tests {
		match, err := CompileURLPattern(tt.pattern)
		if err != nil {
			t.Fatalf("CompileURLPattern(%q): %v", tt.pattern, err)
		}
		if got := match(tt.url); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.url, got, tt.want)
		}
	}
	for _, bad := range []string{"", "  ", "a b", "re:(", "re:a[", strings.Repeat("x", 2001)} {
		if _, err := CompileURLPattern(bad); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("CompileURLPattern(%.20q) = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestMockRuleCheck(t *testing.T) {
	tests := []struct {
		r       MockRule
		mention string // "" means valid
	}{
		{MockRule{Action: MockFulfill, Status: 201, Body: []byte("x")}, ""},
		{MockRule{Action: MockContinue, FailRate: 0.5, Reason: "TimedOut", Delay: time.Second}, ""},
		{MockRule{Action: MockFail, Reason: "ConnectionRefused"}, ""},
		{MockRule{Action: "teleport"}, "action"},
		{MockRule{Action: MockFulfill, Method: "get me"}, "method"},
		{MockRule{Action: MockFulfill, Status: 99}, "status"},
		{MockRule{Action: MockFail, Reason: "Oops"}, "reason"},
		{MockRule{Action: MockContinue, FailRate: -0.1}, "failRate"},
		{MockRule{Action: MockContinue, FailRate: 1.01}, "failRate"},
		{MockRule{Action: MockFulfill, FailRate: 0.5}, "failRate goes with"},
		{MockRule{Action: MockContinue, Delay: MaxMockDelay + time.Millisecond}, "delayMs"},
		{MockRule{Action: MockContinue, Times: -1}, "times"},
		{MockRule{Action: MockFail, Status: 200}, "go with action fulfill"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X-A": "1\r\nSet-Cookie: x"}}, "header"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X-A": "a\x00b"}}, "control character"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X-A": "a\x7fb"}}, "control character"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X-A": "a\x1bb"}}, "control character"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X-A": "a\rb"}}, "control character"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X-\x00A": "b"}}, "token"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X(A)": "b"}}, "token"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"": "b"}}, "token"},
		{MockRule{Action: MockFulfill, Headers: map[string]string{"X-A": "tab\tand ünïcode"}}, ""},
	}
	for _, tt := range tests {
		err := tt.r.check()
		switch {
		case tt.mention == "" && err != nil:
			t.Errorf("check(%+v) = %v, want nil", tt.r, err)
		case tt.mention != "" && (!errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention)):
			t.Errorf("check(%+v) = %v, want ErrInvalidArgument naming %q", tt.r, err, tt.mention)
		}
	}
}

func TestCheckCookie(t *testing.T) {
	ok := func(c Cookie, url string) CookieSpec { return CookieSpec{Cookie: c, URL: url} }
	tests := []struct {
		c       CookieSpec
		mention string
	}{
		{ok(Cookie{Name: "a", Value: "b"}, "http://h/"), ""},
		{ok(Cookie{Name: "a", Value: "b", Secure: true, SameSite: "None"}, "https://h/"), ""},
		{ok(Cookie{Name: "a", Value: "b", Secure: true, PartitionKey: "https://top.example"}, "https://h/"), ""},
		{CookieSpec{Cookie: Cookie{Name: "a", Domain: ".h.test", Path: "/x"}}, ""},
		{ok(Cookie{Name: "", Value: "b"}, "http://h/"), "name"},
		{ok(Cookie{Name: "a=b"}, "http://h/"), "name"},
		{ok(Cookie{Name: "a", Value: "x;y"}, "http://h/"), "value"},
		{CookieSpec{Cookie: Cookie{Name: "a"}}, "url, or domain"},
		{ok(Cookie{Name: "a", Secure: true}, "http://example.com/"), "https"},
		{ok(Cookie{Name: "a"}, "javascript:alert(1)"), "url"},
		{ok(Cookie{Name: "a", SameSite: "None"}, "https://h/"), "secure"},
		{ok(Cookie{Name: "a", SameSite: "strict"}, "https://h/"), "sameSite"},
		{ok(Cookie{Name: "a", Expires: -5}, "https://h/"), "expires"},
		{ok(Cookie{Name: "a", Path: "x"}, "https://h/"), "path"},
		{ok(Cookie{Name: "a", Secure: true, PartitionKey: "http://top.example"}, "https://h/"), "partitionKey"},
		{ok(Cookie{Name: "a", PartitionKey: "https://top.example"}, "https://h/"), "secure"},
		{CookieSpec{Cookie: Cookie{Name: "a", Domain: "h/x"}}, "domain"},
	}
	for _, tt := range tests {
		err := checkCookie(&tt.c)
		switch {
		case tt.mention == "" && err != nil:
			t.Errorf("checkCookie(%+v) = %v, want nil", tt.c, err)
		case tt.mention != "" && (!errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention)):
			t.Errorf("checkCookie(%+v) = %v, want ErrInvalidArgument naming %q", tt.c, err, tt.mention)
		}
	}
}

func TestParseStorageState(t *testing.T) {
	good := `{"cookies":[{"name":"sid","value":"v","domain":"127.0.0.1","path":"/","expires":-1,"httpOnly":true,"secure":false,"sameSite":"Lax"}],
"origins":[{"origin":"http://127.0.0.1:8080","localStorage":[{"name":"k","value":"v"}]}]}`
	st, err := ParseStorageState([]byte(good))
	if err != nil || len(st.Cookies) != 1 || len(st.Origins) != 1 {
		t.Fatalf("ParseStorageState(good) = %+v, %v", st, err)
	}
	for _, bad := range []string{
		`[]`,
		`{"cookies":[],"origins":[],"extra":1}`,
		`{"cookies":[{"name":"","value":"v","domain":"h","path":"/"}],"origins":[]}`,
		`{"cookies":[],"origins":[{"origin":"file:///etc","localStorage":[]}]}`,
		`{"cookies":[],"origins":[{"origin":"http://h/path","localStorage":[]}]}`,
	} {
		if _, err := ParseStorageState([]byte(bad)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("ParseStorageState(%s) = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestSafeName(t *testing.T) {
	tests := map[string]string{
		"report.csv":             "report.csv",
		"../../etc/passwd":       "passwd",
		`..\..\win.ini`:          "win.ini",
		".bashrc":                "bashrc",
		"":                       "download",
		"a\x00b:c*?.txt":         "a_b_c__.txt",
		"..":                     "download",
		strings.Repeat("x", 300): strings.Repeat("x", 120),
	}
	for in, want := range tests {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStatusClass(t *testing.T) {
	tests := []struct {
		r    Request
		want string
	}{
		{Request{Status: 200}, "2xx"},
		{Request{Status: 404}, "4xx"},
		{Request{Status: 503}, "5xx"},
		{Request{Status: 200, Failure: "net::ERR_ABORTED"}, "failed"},
		{Request{}, "pending"},
	}
	for _, tt := range tests {
		if got := StatusClass(tt.r); got != tt.want {
			t.Errorf("StatusClass(%+v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}
