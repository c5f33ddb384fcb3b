package policy

import (
	"strings"
	"testing"
)

func TestCheckChromeArg(t *testing.T) {
	for _, ok := range []string{"--lang=de", "--window-size=800,600", "--host-resolver-rules=MAP x 127.0.0.1", "-force-dark-mode"} {
		if err := CheckChromeArg(ok); err != nil {
			t.Errorf("CheckChromeArg(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{
		"--renderer-cmd-prefix=sh -c 'touch /tmp/x'", "-renderer-cmd-prefix=x", "--RENDERER-CMD-PREFIX=x",
		"--utility-cmd-prefix=x", "--gpu-launcher=x", "--browser-subprocess-path=/bin/sh", "--load-extension=/tmp/ext",
		"--remote-allow-origins=*", "--remote-debugging-address=0.0.0.0", "--remote-debugging-port=9222",
		"--remote-debugging-pipe", "--user-data-dir=/root/.config/chromium", "--ppapi-plugin-launcher=x",
		// They would route the browser around the egress proxy that judges
		// every connection's address.
		"--proxy-server=direct://", "--no-proxy-server", "--proxy-pac-url=http://x/p.pac", "--proxy-bypass-list=*",
		"--proxy-auto-detect", "--force-webrtc-ip-handling-policy=default",
	} {
		err := CheckChromeArg(bad)
		if err == nil || !strings.Contains(err.Error(), "not allowed") {
			t.Errorf("CheckChromeArg(%q) = %v, want a refusal", bad, err)
		}
	}
	if err := CheckChromeArg("http://example.com/"); err == nil {
		t.Error("CheckChromeArg(a URL) = nil, want an error")
	}
}
