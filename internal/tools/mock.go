package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

type mockArgs struct {
	Target       string            `json:"target,omitempty"`
	URL          string            `json:"url" jsonschema:"glob over the whole url (*/api/users*), or re:REGEX"`
	Method       string            `json:"method,omitempty" jsonschema:"only this method (GET, POST…)"`
	ResourceType string            `json:"resourceType,omitempty" jsonschema:"only this type: fetch, xhr, document, script, image…"`
	Action       string            `json:"action,omitempty" jsonschema:"fulfill (default), fail, or continue to the network"`
	Status       int               `json:"status,omitempty" jsonschema:"fulfill: status (default 200)"`
	Headers      map[string]string `json:"headers,omitempty" jsonschema:"fulfill: response headers"`
	Body         string            `json:"body,omitempty" jsonschema:"fulfill: response body"`
	BodyPath     string            `json:"bodyPath,omitempty" jsonschema:"fulfill: body from this file in the artifact dir"`
	JSON         any               `json:"json,omitempty" jsonschema:"fulfill: this value as a JSON body (sets content-type)"`
	Reason       string            `json:"reason,omitempty" jsonschema:"fail and failRate: Failed (default), ConnectionRefused, TimedOut, NameNotResolved, Aborted…"`
	DelayMs      int               `json:"delayMs,omitempty" jsonschema:"wait this long before answering (latency)"`
	FailRate     float64           `json:"failRate,omitempty" jsonschema:"continue: fail this share of requests, 0-1"`
	Seed         uint64            `json:"seed,omitempty" jsonschema:"makes failRate repeatable"`
	Times        int               `json:"times,omitempty" jsonschema:"expire after this many hits (default never)"`
	Scope        string            `json:"scope,omitempty" jsonschema:"tab (default) or context: every tab of its browser context that is yours (refused while other sessions have tabs there)"`
}

type listMocksArgs struct{}

type clearMocksArgs struct {
	Target string `json:"target,omitempty"`
	IDs    []int  `json:"ids,omitempty" jsonschema:"only these rules"`
	All    bool   `json:"all,omitempty" jsonschema:"every rule, of every tab"`
}

func mockTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "mock_request",
			Description: "Fake backend: answer a tab's matching requests with a canned response (fulfill), a network error (fail), " +
				"or pass them on with latency/faults (continue). First matching rule wins; rules survive reloads until clear_mocks. " +
				"The URL policy still applies. Without --allow-eval a fulfilled body is data only (JSON, text, images): a document or script is evaluation.",
		}, mockRequest),
		define(Tool{
			Name:        "list_mocks",
			Description: "The mock rules of every tab, in match order, with hit counts; rules of closed tabs are pruned and reported.",
			ReadOnly:    true,
		}, listMocks),
		defineOn(Tool{
			Name:        "clear_mocks",
			Description: "Remove mock rules: those that apply to the tab (default), some ids, or all; requests go to the network again.",
			Idempotent:  true,
		}, clearMocks),
	}
}

func mockRequest(ctx context.Context, env *Env, d *door, in mockArgs) (*Result, error) {
	bad := func(hint, format string, args ...any) (*Result, error) {
		return nil, errorf(InvalidArgs, false, hint, format, args...)
	}
	action := strings.ToLower(strings.TrimSpace(in.Action))
	if action == "" {
		action = driver.MockFulfill
	}
	r := driver.MockRule{
		URL: in.URL, Method: strings.ToUpper(strings.TrimSpace(in.Method)), ResourceType: strings.ToLower(strings.TrimSpace(in.ResourceType)),
		Action: action, Status: in.Status, Headers: in.Headers, Reason: in.Reason, FailRate: in.FailRate, Seed: in.Seed, Times: in.Times,
		Delay: time.Duration(in.DelayMs) * time.Millisecond,
	}
	if r.ResourceType != "" && !contains(resourceTypes, r.ResourceType) {
		return bad("resourceType is one of "+strings.Join(resourceTypes, ", "), "unknown resourceType %q", in.ResourceType)
	}
	switch in.Scope {
	case "", "tab":
	case "context":
		r.Context = true
	default:
		return bad("scope is tab or context", "scope %q is not tab or context", in.Scope)
	}
	if in.DelayMs < 0 {
		return bad("delayMs is 0 or more", "delayMs %d is negative", in.DelayMs)
	}
	bodies := 0
	for _, given := range []bool{in.Body != "", in.BodyPath != "", in.JSON != nil} {
		if given {
			bodies++
		}
	}
	if bodies > 1 {
		return bad("give one of body, bodyPath and json", "body, bodyPath and json do not go together")
	}
	switch {
	case in.Body != "":
		r.Body = []byte(in.Body)
	case in.JSON != nil:
		data, err := json.Marshal(in.JSON)
		if err != nil {
			return bad("json is any JSON value", "json: %v", err)
		}
		r.Body = data
		if headerValue(r.Headers, "content-type") == "" {
			h := map[string]string{"Content-Type": "application/json"}
			for k, v := range r.Headers {
				h[k] = v
			}
			r.Headers = h
		}
	case in.BodyPath != "":
		data, err := env.Artifacts.ReadFile(ctx, in.BodyPath, driver.MaxMockBody)
		if errors.Is(err, policy.ErrTooLarge) {
			return bad(fmt.Sprintf("a body is at most %d bytes", driver.MaxMockBody), "bodyPath %q is too large", in.BodyPath)
		}
		if err != nil {
			return nil, err
		}
		r.Body = data
	}
	if err := refuseRunnable(env, &r); err != nil {
		return nil, err
	}
	// Everything the browser checks (pattern, regex, failRate, reason…) is
	// checked before anything is armed.
	tab := d.tab
	mk, err := role[driver.Mocker](env, tab, "network mocks")
	if err != nil {
		return nil, err
	}
	m, err := mk.AddMock(ctx, r)
	if err != nil {
		if errors.Is(err, driver.ErrInvalidArgument) {
			return nil, errorf(InvalidArgs, false, mockHint(err), "%s", strings.TrimPrefix(err.Error(), driver.ErrInvalidArgument.Error()+": "))
		}
		return nil, err
	}
	return &Result{Data: struct {
		Mock driver.Mock `json:"mock"`
		Note string      `json:"note"`
	}{m, "applies to requests from now on; reload the page (navigate_page type reload) to mock what it already loaded"}}, nil
}

// mockHint is the hint for a rule the browser refused.
func mockHint(err error) string {
	s := err.Error()
	switch {
	case errors.Is(err, driver.ErrSharedScope):
		return "use scope tab (the default) on each of your tabs, or run the server with --isolate-sessions so that each session has a browser context of its own"
	case strings.Contains(s, "regex"):
		return "write a Go (RE2) regular expression after re:, such as re:/api/users(/\\d+)?$"
	case strings.Contains(s, "pattern"):
		return "url is a glob over the whole url, such as */api/users*, or re:REGEX"
	case strings.Contains(s, "reason"):
		return "reason is one of " + strings.Join(driver.MockErrorReasons, ", ")
	case strings.Contains(s, "header"):
		return "header names are HTTP tokens (X-My-Header); values hold no control characters (NUL, CR, LF, ESC…)"
	case strings.Contains(s, "clear some"):
		return "call clear_mocks"
	}
	return "see mock_request's input schema"
}

// mockLister returns the running browser's mock table.
func mockLister(ctx context.Context, env *Env) (driver.MockLister, error) {
	d, err := env.Browsers.Driver(ctx)
	if err != nil {
		return nil, err
	}
	return role[driver.MockLister](env, d, "listing and clearing mocks")
}

func listMocks(ctx context.Context, env *Env, _ listMocksArgs) (*Result, error) {
	b, err := mockLister(ctx, env)
	if err != nil {
		return nil, err
	}
	q := driver.MockQuery{Scope: env.Scope}
	rules, pruned, err := b.Mocks(ctx, q)
	if err != nil {
		return nil, err
	}
	var s strings.Builder
	for _, m := range rules {
		s.WriteString(mockLine(m))
		s.WriteByte('\n')
	}
	for _, m := range pruned {
		s.WriteString("pruned (tab closed): " + mockLine(m))
		s.WriteByte('\n')
	}
	return &Result{Data: struct {
		Rules  int `json:"rules"`
		Pruned int `json:"pruned,omitempty"`
	}{len(rules), len(pruned)}, Text: s.String(), Rows: rules}, nil
}

// mockLine renders a rule as one line:
// `#3 GET fetch */api/users* → fulfill 200 (45 B) tab 1A2B… hits 2/2 expired`.
func mockLine(m driver.Mock) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d", m.ID)
	if m.Method != "" {
		b.WriteString(" " + m.Method)
	}
	if m.ResourceType != "" {
		b.WriteString(" " + m.ResourceType)
	}
	b.WriteString(" " + m.URL + " → " + m.Action)
	switch m.Action {
	case driver.MockFulfill:
		status := m.Status
		if status == 0 {
			status = 200
		}
		fmt.Fprintf(&b, " %d (%d B)", status, m.BodyBytes)
	case driver.MockFail:
		b.WriteString(" " + orDefault(m.Reason, "Failed"))
	}
	if m.FailRate > 0 {
		fmt.Fprintf(&b, " failRate %g %s", m.FailRate, orDefault(m.Reason, "Failed"))
	}
	if m.DelayMs > 0 {
		fmt.Fprintf(&b, " +%dms", m.DelayMs)
	}
	tab := m.Tab
	if len(tab) > 8 {
		tab = tab[:8] + "…"
	}
	fmt.Fprintf(&b, " %s %s hits %d", m.Scope, tab, m.Hits)
	if m.Times > 0 {
		fmt.Fprintf(&b, "/%d", m.Times)
	}
	if m.Expired {
		b.WriteString(" expired")
	}
	return b.String()
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (in *clearMocksArgs) check(context.Context, *Env) error {
	if in.All && (len(in.IDs) > 0 || in.Target != "") {
		return errorf(InvalidArgs, false, "give all alone", "all does not go with ids or target")
	}
	return nil
}

// noTab: clearing by ids or all needs no tab.
func (in *clearMocksArgs) noTab() bool { return in.All || len(in.IDs) > 0 }

func clearMocks(ctx context.Context, env *Env, d *door, in clearMocksArgs) (*Result, error) {
	b, err := mockLister(ctx, env)
	if err != nil {
		return nil, err
	}
	q := driver.MockQuery{Scope: env.Scope, IDs: in.IDs}
	if d != nil {
		q.Tab = d.tab.ID()
	}
	gone, err := b.ClearMocks(ctx, q)
	if err != nil {
		if errors.Is(err, driver.ErrInvalidArgument) {
			return nil, errorf(InvalidArgs, false, "call list_mocks for the ids", "%s", strings.TrimPrefix(err.Error(), driver.ErrInvalidArgument.Error()+": "))
		}
		return nil, err
	}
	ids := make([]int, 0, len(gone))
	for _, m := range gone {
		ids = append(ids, m.ID)
	}
	return &Result{Data: struct {
		Cleared []int `json:"cleared"`
	}{ids}}, nil
}
