package browser

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
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
		match, err := driver.CompileURLPattern(tt.pattern)
		if err != nil {
			t.Fatalf("driver.CompileURLPattern(%q): %v", tt.pattern, err)
		}
		if got := match(tt.url); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.url, got, tt.want)
		}
	}
	for _, bad := range []string{"", "  ", "a b", "re:(", "re:a[", strings.Repeat("x", 2001)} {
		if _, err := driver.CompileURLPattern(bad); !errors.Is(err, driver.ErrInvalidArgument) {
			t.Errorf("driver.CompileURLPattern(%.20q) = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestMockRuleCheck(t *testing.T) {
	tests := []struct {
		r       driver.MockRule
		mention string // "" means valid
	}{
		{driver.MockRule{Action: driver.MockFulfill, Status: 201, Body: []byte("x")}, ""},
		{driver.MockRule{Action: driver.MockContinue, FailRate: 0.5, Reason: "TimedOut", Delay: time.Second}, ""},
		{driver.MockRule{Action: driver.MockFail, Reason: "ConnectionRefused"}, ""},
		{driver.MockRule{Action: "teleport"}, "action"},
		{driver.MockRule{Action: driver.MockFulfill, Method: "get me"}, "method"},
		{driver.MockRule{Action: driver.MockFulfill, Status: 99}, "status"},
		{driver.MockRule{Action: driver.MockFail, Reason: "Oops"}, "reason"},
		{driver.MockRule{Action: driver.MockContinue, FailRate: -0.1}, "failRate"},
		{driver.MockRule{Action: driver.MockContinue, FailRate: 1.01}, "failRate"},
		{driver.MockRule{Action: driver.MockFulfill, FailRate: 0.5}, "failRate goes with"},
		{driver.MockRule{Action: driver.MockContinue, Delay: driver.MaxMockDelay + time.Millisecond}, "delayMs"},
		{driver.MockRule{Action: driver.MockContinue, Times: -1}, "times"},
		{driver.MockRule{Action: driver.MockFail, Status: 200}, "go with action fulfill"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X-A": "1\r\nSet-Cookie: x"}}, "header"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X-A": "a\x00b"}}, "control character"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X-A": "a\x7fb"}}, "control character"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X-A": "a\x1bb"}}, "control character"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X-A": "a\rb"}}, "control character"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X-\x00A": "b"}}, "token"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X(A)": "b"}}, "token"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"": "b"}}, "token"},
		{driver.MockRule{Action: driver.MockFulfill, Headers: map[string]string{"X-A": "tab\tand ünïcode"}}, ""},
	}
	for _, tt := range tests {
		err := tt.r.Check()
		switch {
		case tt.mention == "" && err != nil:
			t.Errorf("check(%+v) = %v, want nil", tt.r, err)
		case tt.mention != "" && (!errors.Is(err, driver.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention)):
			t.Errorf("check(%+v) = %v, want ErrInvalidArgument naming %q", tt.r, err, tt.mention)
		}
	}
}

func TestCheckCookie(t *testing.T) {
	ok := func(c driver.Cookie, url string) driver.CookieSpec { return driver.CookieSpec{Cookie: c, URL: url} }
	tests := []struct {
		c       driver.CookieSpec
		mention string
	}{
		{ok(driver.Cookie{Name: "a", Value: "b"}, "http://h/"), ""},
		{ok(driver.Cookie{Name: "a", Value: "b", Secure: true, SameSite: "None"}, "https://h/"), ""},
		{ok(driver.Cookie{Name: "a", Value: "b", Secure: true, PartitionKey: "https://top.example"}, "https://h/"), ""},
		{driver.CookieSpec{Cookie: driver.Cookie{Name: "a", Domain: ".h.test", Path: "/x"}}, ""},
		{ok(driver.Cookie{Name: "", Value: "b"}, "http://h/"), "name"},
		{ok(driver.Cookie{Name: "a=b"}, "http://h/"), "name"},
		{ok(driver.Cookie{Name: "a", Value: "x;y"}, "http://h/"), "value"},
		{driver.CookieSpec{Cookie: driver.Cookie{Name: "a"}}, "url, or domain"},
		{ok(driver.Cookie{Name: "a", Secure: true}, "http://example.com/"), "https"},
		{ok(driver.Cookie{Name: "a"}, "javascript:alert(1)"), "url"},
		{ok(driver.Cookie{Name: "a", SameSite: "None"}, "https://h/"), "secure"},
		{ok(driver.Cookie{Name: "a", SameSite: "strict"}, "https://h/"), "sameSite"},
		{ok(driver.Cookie{Name: "a", Expires: -5}, "https://h/"), "expires"},
		{ok(driver.Cookie{Name: "a", Path: "x"}, "https://h/"), "path"},
		{ok(driver.Cookie{Name: "a", Secure: true, PartitionKey: "http://top.example"}, "https://h/"), "partitionKey"},
		{ok(driver.Cookie{Name: "a", PartitionKey: "https://top.example"}, "https://h/"), "secure"},
		{driver.CookieSpec{Cookie: driver.Cookie{Name: "a", Domain: "h/x"}}, "domain"},
	}
	for _, tt := range tests {
		err := driver.CheckCookie(&tt.c)
		switch {
		case tt.mention == "" && err != nil:
			t.Errorf("driver.CheckCookie(%+v) = %v, want nil", tt.c, err)
		case tt.mention != "" && (!errors.Is(err, driver.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention)):
			t.Errorf("driver.CheckCookie(%+v) = %v, want ErrInvalidArgument naming %q", tt.c, err, tt.mention)
		}
	}
}

func TestParseStorageState(t *testing.T) {
	good := `{"cookies":[{"name":"sid","value":"v","domain":"127.0.0.1","path":"/","expires":-1,"httpOnly":true,"secure":false,"sameSite":"Lax"}],
"origins":[{"origin":"http://127.0.0.1:8080","localStorage":[{"name":"k","value":"v"}]}]}`
	st, err := driver.ParseStorageState([]byte(good))
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
		if _, err := driver.ParseStorageState([]byte(bad)); !errors.Is(err, driver.ErrInvalidArgument) {
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
		r    driver.Request
		want string
	}{
		{driver.Request{Status: 200}, "2xx"},
		{driver.Request{Status: 404}, "4xx"},
		{driver.Request{Status: 503}, "5xx"},
		{driver.Request{Status: 200, Failure: "net::ERR_ABORTED"}, "failed"},
		{driver.Request{}, "pending"},
	}
	for _, tt := range tests {
		if got := driver.StatusClass(tt.r); got != tt.want {
			t.Errorf("driver.StatusClass(%+v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}
