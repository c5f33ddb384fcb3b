package tools

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestEmulateToolsRejectArgs checks the argument errors caught before any
// browser is needed (testEnv has none).
func TestEmulateToolsRejectArgs(t *testing.T) {
	tests := []struct {
		tool    string
		args    string
		mention string
	}{
		{"resize_page", `{}`, "exactly one"},
		{"resize_page", `{"preset":"mobile","reset":true}`, "exactly one"},
		{"resize_page", `{"width":390,"preset":"mobile"}`, "exactly one"},
		{"resize_page", `{"width":390}`, "height"},
		{"resize_page", `{"width":-1,"height":5}`, "width"},
		{"resize_page", `{"preset":"watch"}`, "watch"},
		// A floor of 200×200: smaller leaves nothing to see (issue #39).
		{"resize_page", `{"width":50,"height":50}`, "200"},
		{"resize_page", `{"width":1280,"height":199}`, "200"},
		{"resize_page", `{"width":800,"height":600,"deviceScaleFactor":9}`, "deviceScaleFactor"},
		{"resize_page", `{"reset":true,"mobile":true}`, "reset"},
		{"emulate", `{"colorScheme":"sepia"}`, "colorScheme"},
		{"emulate", `{"reducedMotion":"less"}`, "reducedMotion"},
		{"emulate", `{"cpuThrottling":50}`, "cpuThrottling"},
		{"emulate", `{"network":"5g"}`, "network"},
		{"emulate", `{"network":"Slow 3G","customNetwork":{"latencyMs":100}}`, "not both"},
		{"emulate", `{"customNetwork":{}}`, "latencyMs"},
		{"emulate", `{"customNetwork":{"latencyMs":-5}}`, "latency"},
		{"emulate", `{"cpuThrottling":2,"cpuThrottlingRate":4}`, "disagree"},
		{"emulate", `{"cpuThrottlingRate":40}`, "cpuThrottling"},
		{"emulate", `{"geolocation":{"latitude":100,"longitude":0}}`, "latitude"},
		{"emulate", `{"geolocation":{"longitude":0}}`, "latitude"},
		{"emulate", `{"extraHeaders":{"X":1}}`, "extraHeaders"},
		{"emulate", `{"nope":1}`, "nope"},
		// Issue #25 item 14: CRLF and headers the browser manages itself
		// are refused up front, before anything reaches the tab.
		{"emulate", `{"extraHeaders":{"X-A":"1\r\nHost: evil"}}`, "X-A"},
		{"emulate", `{"extraHeaders":{"X-A\r\nB":"1"}}`, "name"},
		{"emulate", `{"extraHeaders":{"X A":"1"}}`, "name"},
		{"emulate", `{"extraHeaders":{"X-A":"\u0000"}}`, "X-A"},
		{"emulate", `{"extraHeaders":{"Host":"example.com"}}`, "Host"},
		{"emulate", `{"extraHeaders":{"content-length":"5"}}`, "content-length"},
		{"emulate", `{"extraHeaders":{"Cookie2":"a=b"}}`, "Cookie2"},
		{"emulate", `{"extraHeaders":{"Transfer-Encoding":"chunked"}}`, "Transfer-Encoding"},
		{"emulate", `{"extraHeaders":{"Connection":"close"}}`, "Connection"},
		{"emulate", `{"extraHeaders":{"Proxy-Authorization":"x"}}`, "Proxy-Authorization"},
		{"emulate", `{"userAgent":"Mozilla\r\nX-Evil: 1"}`, "userAgent"},
		{"emulate", `{"userAgent":"Mozilla\u0000"}`, "userAgent"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			_, err := runTool(t, testEnv(), tt.tool, tt.args)
			wantCode(t, err, InvalidArgs, tt.mention)
		})
	}
}

func TestEmulateArgsGeolocation(t *testing.T) {
	tests := []struct {
		args      string
		wantGiven bool
		wantGeo   bool
	}{
		{`{}`, false, false},
		{`{"geolocation":null}`, true, false},
		{`{"geolocation":{"latitude":1,"longitude":2}}`, true, true},
	}
	for _, tt := range tests {
		var a emulateArgs
		if err := json.Unmarshal([]byte(tt.args), &a); err != nil {
			t.Fatalf("Unmarshal(%s): %v", tt.args, err)
		}
		if a.geoGiven != tt.wantGiven || (a.Geolocation != nil) != tt.wantGeo {
			t.Errorf("Unmarshal(%s): given %v, geolocation %+v; want given %v, set %v", tt.args, a.geoGiven, a.Geolocation, tt.wantGiven, tt.wantGeo)
		}
	}
	var a emulateArgs
	if err := json.Unmarshal([]byte(`{"colorScheme":"dark","bogus":1}`), &a); err == nil {
		t.Errorf("Unmarshal accepted an unknown field")
	}
}

func TestViewportWarning(t *testing.T) {
	mobile, _ := driver.ViewportPreset("mobile")
	desktop, _ := driver.ViewportPreset("desktop")
	tests := []struct {
		name    string
		asked   *driver.Viewport
		m       driver.ViewportMetrics
		mention []string // "" when there should be no warning
	}{
		{"as asked", &mobile, driver.ViewportMetrics{InnerWidth: 390, InnerHeight: 844, DevicePixelRatio: 3, ScrollWidth: 390}, nil},
		{"no viewport meta", &mobile, driver.ViewportMetrics{InnerWidth: 980, InnerHeight: 2120, DevicePixelRatio: 3, ScrollWidth: 980},
			[]string{"980 px wide, not 390", "meta name=viewport", "innerHeight is 2120"}},
		{"wide content", &desktop, driver.ViewportMetrics{InnerWidth: 1280, InnerHeight: 800, DevicePixelRatio: 1, ScrollWidth: 1600},
			[]string{"1600 px wide", "scrolls sideways"}},
		{"zoomed", &desktop, driver.ViewportMetrics{InnerWidth: 1280, InnerHeight: 800, DevicePixelRatio: 1.25, ScrollWidth: 1280},
			[]string{"devicePixelRatio is 1.25, not 1"}},
		{"reset, wide content", nil, driver.ViewportMetrics{InnerWidth: 1280, InnerHeight: 720, DevicePixelRatio: 1, ScrollWidth: 1300},
			[]string{"scrolls sideways"}},
		{"reset", nil, driver.ViewportMetrics{InnerWidth: 1280, InnerHeight: 720, DevicePixelRatio: 1, ScrollWidth: 1280}, nil},
	}
	for _, tt := range tests {
		got := viewportWarning(tt.asked, tt.m)
		if len(tt.mention) == 0 && got != "" {
			t.Errorf("%s: warning %q, want none", tt.name, got)
		}
		for _, m := range tt.mention {
			if !strings.Contains(got, m) {
				t.Errorf("%s: warning %q, want it to mention %q", tt.name, got, m)
			}
		}
	}
}

func TestRedactHeaders(t *testing.T) {
	got := redactHeaders(map[string]string{
		"Authorization": "Bearer abc", "cookie": "sid=1", "Proxy-Authorization": "Basic x",
		"X-Api-Key": "k", "X-Auth-Token": "t", "X-Test": "visible", "Accept-Language": "fr",
	})
	want := map[string]string{
		"Authorization": "<redacted>", "cookie": "<redacted>", "Proxy-Authorization": "<redacted>",
		"X-Api-Key": "<redacted>", "X-Auth-Token": "<redacted>", "X-Test": "visible", "Accept-Language": "fr",
	}
	if !maps.Equal(got, want) {
		t.Errorf("redactHeaders = %v, want %v", got, want)
	}
	if redactHeaders(nil) != nil {
		t.Errorf("redactHeaders(nil) is not nil")
	}
}
