package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit"
	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestDoctorHelpShowsItsFlags: doctor -h lists the flags that decide which
// browser is found and how it starts, not the server's (issue 39: it
// listed ~40), and doctor refuses a flag that does not apply to it.
func TestDoctorHelpShowsItsFlags(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := runDoctor(t.Context(), []string{"-h"}, &out, &errb); code != 0 {
		t.Fatalf("doctor -h: exit %d, want 0", code)
	}
	help := errb.String()
	for _, want := range []string{"-executable-path", "-browser ", "-browser-url", "-headed", "-chrome-arg", "\n  -v"} {
		if !strings.Contains(help, want) {
			t.Errorf("doctor -h lacks %s:\n%s", want, help)
		}
	}
	for _, not := range []string{"-allow-eval", "-tools", "-log-level", "-dialogs", "-require-lease", "-upload-root", "-storage-state", "CDPKIT_TOOL_TIMEOUT"} {
		if strings.Contains(help, not) {
			t.Errorf("doctor -h lists %s, which doctor does not use:\n%s", not, help)
		}
	}
	out.Reset()
	errb.Reset()
	if code := runDoctor(t.Context(), []string{"--allow-eval"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--allow-eval") {
		t.Errorf("doctor --allow-eval: exit %d, stderr %q; want 2 naming the flag", code, errb.String())
	}
}

// TestDoctorSearchList: doctor prints where it looked for a browser when
// none is found, or with -v, and not on success (issue 39).
func TestDoctorSearchList(t *testing.T) {
	exe := browsertest.ExecPath(t) // before PATH holds nothing
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CHROMIUM_PATH", "")
	var out, errb bytes.Buffer
	if code := runDoctor(t.Context(), nil, &out, &errb); code != 1 || !strings.Contains(out.String(), "looked for, in order:") || !strings.Contains(out.String(), "chromium") {
		t.Errorf("doctor with no browser: exit %d, output %q; want 1 and the search list", code, out.String())
	}

	for _, tt := range []struct {
		args     []string
		wantList bool
	}{
		{[]string{"--executable-path", exe}, false},
		{[]string{"-v", "--executable-path", exe}, true},
	} {
		out.Reset()
		code := runDoctor(t.Context(), tt.args, &out, &errb)
		if code != 0 {
			t.Fatalf("doctor %q: exit %d, output %q", tt.args, code, out.String())
		}
		if got := strings.Contains(out.String(), "looked at"); got != tt.wantList {
			t.Errorf("doctor %q printed where it looked: %v, want %v:\n%s", tt.args, got, tt.wantList, out.String())
		}
	}
}

// TestDoctorNavigateCheck: the navigate check passes only when the
// doctor's own page loaded and its server answered it, so a backend that
// reports no HTTP status (Firefox: "status 0") is judged by what the
// server saw (issue 39).
func TestDoctorNavigateCheck(t *testing.T) {
	for _, tt := range []struct {
		name   string
		nav    *cdpkit.Page
		served int
		want   string // "" for ok; else part of the error
		detail string
	}{
		{"chromium", &cdpkit.Page{Title: "cdpkit doctor", Status: 200}, 1, "", `"cdpkit doctor" status 200`},
		{"firefox reports no status", &cdpkit.Page{Title: "cdpkit doctor"}, 1, "", `"cdpkit doctor" served with status 200`},
		{"never reached the server", &cdpkit.Page{Title: "cdpkit doctor"}, 0, "never asked the page server", ""},
		{"another page", &cdpkit.Page{Title: "Problem loading page"}, 0, `loaded "Problem loading page"`, ""},
		{"an error status", &cdpkit.Page{Title: "cdpkit doctor", Status: 502}, 1, "status 502", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			detail, err := checkNav(tt.nav, tt.served)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("checkNav = %v, want ok", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("checkNav = %v, want an error with %q", err, tt.want)
			case tt.want == "" && detail != tt.detail:
				t.Errorf("detail = %q, want %q", detail, tt.detail)
			}
		})
	}
	if _, err := checkNav(nil, 0); err == nil || errors.Is(err, nil) {
		t.Errorf("checkNav(nil) = %v, want an error", err)
	}
}
