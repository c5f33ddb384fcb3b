package tools

import (
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// TestEmulateNetworkPresets sets network throttling by DevTools' preset
// names and by custom conditions, and checks what the page sees.
func TestEmulateNetworkPresets(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.mustCall(t, "new_page", `{"url":"`+serveFixtures(t)+`/app.html"}`)
	tests := []struct {
		args, network string
	}{
		{`{"network":"Slow 4G"}`, "slow4g"},
		{`{"network":"Fast 4G","cpuThrottlingRate":4}`, "fast4g"},
		{`{"customNetwork":{"latencyMs":300,"downloadKbps":800}}`, "custom"},
		{`{"network":"No throttling","cpuThrottlingRate":1}`, ""},
	}
	for _, tt := range tests {
		got := h.mustCall(t, "emulate", tt.args)
		if n, _ := got["network"].(string); n != tt.network {
			t.Errorf("emulate %s: network = %q, want %q", tt.args, n, tt.network)
		}
	}
	res, err := h.result(t, "emulate", `{"customNetwork":{"latencyMs":300,"downloadKbps":800},"cpuThrottlingRate":2}`)
	if err != nil {
		t.Fatal(err)
	}
	e := res.Data.(driver.Emulation)
	if nc := e.NetworkCustom; nc == nil || nc.LatencyMS != 300 || nc.DownloadKbps != 800 {
		t.Errorf("networkCustom = %+v", e.NetworkCustom)
	}
	if text := throttlingText(e); text != "CPU 2x slower, network custom (300 ms, 800/0 kbit/s down/up)" {
		t.Errorf("throttling = %q", text)
	}
	h.mustCall(t, "emulate", `{"network":"none"}`)
}
