package main

import (
	"io"
	"strings"
	"testing"
)

// TestEnvBool: boolean CDPKIT_* variables take true/yes/on/1 and
// false/no/off/0 in any case; anything else is an error naming the
// variable, not silently false (issue #39: CDPKIT_ALLOW_EVAL=true was
// ignored).
func TestEnvBool(t *testing.T) {
	for _, v := range []string{"1", "true", "TRUE", "yes", "on", " On "} {
		t.Setenv("CDPKIT_ALLOW_EVAL", v)
		c, err := parseConfig("mcp", nil, io.Discard)
		if err != nil || !c.opts.AllowEval {
			t.Errorf("CDPKIT_ALLOW_EVAL=%q: allowEval %v, %v; want true", v, c != nil && c.opts.AllowEval, err)
		}
	}
	for _, v := range []string{"", "0", "false", "No", "off"} {
		t.Setenv("CDPKIT_ALLOW_EVAL", v)
		c, err := parseConfig("mcp", nil, io.Discard)
		if err != nil || c.opts.AllowEval {
			t.Errorf("CDPKIT_ALLOW_EVAL=%q: allowEval %v, %v; want false", v, c != nil && c.opts.AllowEval, err)
		}
	}
	for _, name := range []string{"CDPKIT_ALLOW_EVAL", "CDPKIT_HEADED", "CDPKIT_IGNORE_HTTPS_ERRORS", "CDPKIT_REQUIRE_LEASE"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "maybe")
			_, err := parseConfig("mcp", nil, io.Discard)
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "maybe") {
				t.Errorf("%s=maybe: error %v, want one naming the variable and its value", name, err)
			}
		})
	}
}
