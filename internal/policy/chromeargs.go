package policy

import (
	"fmt"
	"strings"
)

// deniedChromeArgs are Chromium switches --chrome-arg refuses, with why.
// Some run a program of the user's choosing in place of a browser process;
// some open or widen the DevTools control channel; the rest are owned by
// cdpkit, which launches over a pipe with a throwaway profile.
var deniedChromeArgs = map[string]string{
	"renderer-cmd-prefix":             "runs a command in front of every renderer",
	"utility-cmd-prefix":              "runs a command in front of every utility process",
	"gpu-launcher":                    "runs a command in front of the GPU process",
	"browser-subprocess-path":         "replaces the program run for child processes",
	"ppapi-plugin-launcher":           "runs a command in front of plugin processes",
	"load-extension":                  "loads extension code with access to every page",
	"remote-allow-origins":            "lets web pages connect to the DevTools endpoint",
	"remote-debugging-address":        "exposes the DevTools endpoint on the network",
	"remote-debugging-port":           "opens a DevTools endpoint that anything on the machine can drive",
	"remote-debugging-pipe":           "is set by cdpkit, which talks to the browser over it",
	"remote-debugging-io-pipes":       "is set by cdpkit, which talks to the browser over its pipe",
	"proxy-server":                    "is set by cdpkit, whose egress proxy judges every connection's address",
	"no-proxy-server":                 "would bypass cdpkit's egress proxy, which judges every connection's address",
	"proxy-pac-url":                   "would route around cdpkit's egress proxy, which judges every connection's address",
	"proxy-bypass-list":               "would route around cdpkit's egress proxy, which judges every connection's address",
	"proxy-auto-detect":               "would route around cdpkit's egress proxy, which judges every connection's address",
	"force-webrtc-ip-handling-policy": "is set by cdpkit so that WebRTC cannot send UDP around its egress proxy",
	"user-data-dir":                   "is set by cdpkit, which uses a throwaway profile (attach to a browser with --auto-connect to use your own)",
}

// CheckChromeArg refuses a user-supplied Chromium switch that could run
// other programs, load extensions, or open the DevTools control channel.
// Switches are matched as Chromium parses them: one or two leading dashes,
// the name up to "=", case-insensitively.
func CheckChromeArg(arg string) error {
	name := strings.TrimPrefix(arg, "-")
	if name == arg {
		return fmt.Errorf("--chrome-arg %q: want a switch such as --lang=de", arg)
	}
	name = strings.TrimPrefix(name, "-")
	name, _, _ = strings.Cut(name, "=")
	name = strings.ToLower(strings.TrimSpace(name))
	if why, ok := deniedChromeArgs[name]; ok {
		return fmt.Errorf("--chrome-arg %q is not allowed: --%s %s", arg, name, why)
	}
	return nil
}
