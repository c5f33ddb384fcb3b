package tools

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// blockedURL is refused by the default policy (link-local, the cloud
// metadata address), and never reached: the guard fails the request in
// the browser.
const blockedURL = "http://169.254.169.254/latest/meta-data/"

// TestPageNavigationBlocked: a navigation the page starts itself (a link,
// a script's location =, a form post, a meta refresh) to a blocked URL is
// reported as URL_BLOCKED with the URL, in the error or in changes.blocked,
// never as a TIMEOUT or as a plain successful navigation.
func TestPageNavigationBlocked(t *testing.T) {
	t.Parallel()
	base := hostilePages(t, map[string]string{
		"link":   `<!doctype html><title>link</title><a id="go" href="` + blockedURL + `">metadata</a>`,
		"script": `<!doctype html><title>script</title><button id="go" onclick="location = '` + blockedURL + `'">go</button>`,
		"form":   `<!doctype html><title>form</title><form method="post" action="` + blockedURL + `"><button id="go">post</button></form>`,
		"meta":   `<!doctype html><title>meta</title><meta http-equiv="refresh" content="0; url=` + blockedURL + `"><p>META</p>`,
	})
	h := newHarness(t, nil)
	const budget = 8 * time.Second
	check := func(t *testing.T, what string, data map[string]any, err error) {
		t.Helper()
		if err != nil {
			wantCode(t, err, URLBlocked, "169.254.169.254")
			return
		}
		blocked, _ := jsonPath(data, "changes.blocked").(map[string]any)
		if blocked == nil || blocked["code"] != string(URLBlocked) || !strings.Contains(fmt.Sprint(blocked["url"]), "169.254.169.254") {
			t.Errorf("%s: result %v, want changes.blocked with URL_BLOCKED and the URL", what, data)
		}
		if jsonPath(data, "changes.navigated") == true {
			t.Errorf("%s: result %v says the tab navigated", what, data)
		}
	}
	for _, page := range []string{"link", "script", "form"} {
		t.Run(page, func(t *testing.T) {
			h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, base+"/"+page))
			start := time.Now()
			data, err := h.call(t, "click", fmt.Sprintf(`{"selector":"#go","timeout_ms":%d}`, budget.Milliseconds()))
			within(t, "click", start, budget)
			check(t, "click", data, err)
		})
	}
	t.Run("meta", func(t *testing.T) {
		start := time.Now()
		data, err := h.call(t, "navigate_page", fmt.Sprintf(`{"url":%q,"timeout_ms":%d}`, base+"/meta", budget.Milliseconds()))
		within(t, "navigate_page", start, budget)
		if err == nil && jsonPath(data, "changes.blocked") == nil {
			// The refresh may fire after the load the navigation waited
			// for: the next action's changes must say so.
			data, err = h.call(t, "wait_for", `{"time":1000}`)
			if err == nil && jsonPath(data, "changes.blocked") == nil {
				data, err = h.call(t, "press_key", `{"key":"Shift"}`)
			}
		}
		check(t, "meta refresh", data, err)
	})
}

// TestHostUnresolved: a host that does not resolve is no policy refusal:
// navigate_page says HOST_UNRESOLVED with a hint about the name or the
// network, not URL_BLOCKED (issue #39).
func TestHostUnresolved(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil).with(func(env *Env) {
		env.URLPolicy = &policy.Policy{Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}}
	})
	_, err := h.call(t, "navigate_page", `{"url":"http://nosuch.invalid/"}`)
	te := wantCode(t, err, HostUnresolved, "nosuch.invalid")
	if !te.Recoverable || !strings.Contains(te.Hint, "name") {
		t.Errorf("HOST_UNRESOLVED recoverable %v, hint %q; want recoverable with a hint about the name", te.Recoverable, te.Hint)
	}
}
