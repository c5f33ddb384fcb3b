package cdpkit_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/cdpkit/cdpkit"
)

// TestNewLaunchOptions checks that New refuses bad launch options with the
// codes MCP and the CLI give, without starting a browser.
func TestNewLaunchOptions(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	headed := "NO_DISPLAY"
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		headed = ""
	}
	for _, tt := range []struct {
		name string
		o    cdpkit.Options
		want string // the code; "" means New succeeds
	}{
		{"good", cdpkit.Options{ViewportWidth: 800, ViewportHeight: 600, UserAgent: "ua/1", Lang: "de-DE", Timezone: "Asia/Tokyo",
			ProxyServer: "127.0.0.1:3128", ProxyBypass: []string{"<-loopback>"}, IgnoreHTTPSErrors: true, UserDataDir: t.TempDir()}, ""},
		{"device", cdpkit.Options{Device: "mobile"}, ""},
		{"headed without a display", cdpkit.Options{Headful: true}, headed},
		{"viewport and device", cdpkit.Options{ViewportWidth: 800, ViewportHeight: 600, Device: "mobile"}, "INVALID_ARGS"},
		{"unknown device", cdpkit.Options{Device: "phone"}, "INVALID_ARGS"},
		{"half a viewport", cdpkit.Options{ViewportWidth: 800}, "INVALID_ARGS"},
		{"bad timezone", cdpkit.Options{Timezone: "Nowhere/City"}, "INVALID_ARGS"},
		{"proxy scheme", cdpkit.Options{ProxyServer: "socks5://127.0.0.1:1"}, "INVALID_ARGS"},
		{"user agent on an attached browser", cdpkit.Options{Endpoint: "http://127.0.0.1:9222", UserAgent: "x"}, "INVALID_ARGS"},
		{"file URLs under a dir", cdpkit.Options{AllowFileURLs: []string{t.TempDir()}}, ""},
		{"file URLs under no dir", cdpkit.Options{AllowFileURLs: []string{"/no/such/dir"}}, "INVALID_ARGS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := cdpkit.New(&tt.o)
			if err == nil {
				b.Close()
			}
			var ce *cdpkit.Error
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("New = %v, want success", err)
			case tt.want != "" && (!errors.As(err, &ce) || ce.Code != tt.want || ce.Hint == ""):
				t.Errorf("New = %#v, want an *Error with code %s and a hint", err, tt.want)
			}
		})
	}
}
