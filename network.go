package cdpkit

import (
	"context"
	"encoding/json"
	"time"
)

// RequestQuery narrows Requests. Nil means the tab's requests of the
// current navigation, oldest first, the first 50.
type RequestQuery struct {
	URL              string   // only URLs containing this
	ResourceTypes    []string // only these: document, script, fetch, xhr, image, stylesheet, font, …
	Status           []string // only these: 2xx, 3xx, 4xx, 5xx, failed, pending
	IncludePreserved bool     // also the two navigations before the current one
	PageSize         int      // requests per page; zero means 50, at most 200
	PageIdx          int      // the page, 0 the oldest
}

// Request is a network request of a tab, as the network log keeps it
// from the browser's events.
type Request struct {
	// ID increases with each request and is never reused in the tab; a
	// redirect hop is a request of its own. Request(ctx, id) reads it in
	// detail.
	ID         int    `json:"id"`
	Nav        int    `json:"nav"` // the tab's navigation it belongs to
	Method     string `json:"method"`
	URL        string `json:"url"`
	Type       string `json:"type"` // document, script, fetch, xhr, …
	Status     int    `json:"status,omitempty"`
	StatusText string `json:"statusText,omitempty"`
	MIMEType   string `json:"mimeType,omitempty"`
	// Size is the bytes received, headers included, once finished.
	Size     int64         `json:"size,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	Failure  string        `json:"failure,omitempty"` // the network error, such as net::ERR_FAILED
	Done     bool          `json:"done"`
	Cached   bool          `json:"cached,omitempty"`
}

// Requests lists the tab's network requests, oldest first.
func (t *Tab) Requests(ctx context.Context, q *RequestQuery) ([]Request, error) {
	if q == nil {
		q = &RequestQuery{}
	}
	args := map[string]any{"target": t.id, "lease": t.lease, "url": q.URL, "includePreserved": q.IncludePreserved,
		"pageSize": q.PageSize, "pageIdx": q.PageIdx}
	if len(q.ResourceTypes) > 0 {
		args["resourceTypes"] = q.ResourceTypes
	}
	if len(q.Status) > 0 {
		args["status"] = q.Status
	}
	res, err := t.b.run(ctx, "list_network_requests", args)
	if err != nil {
		return nil, err
	}
	reqs := []Request{}
	if err := decode(res.Rows, &reqs); err != nil {
		return nil, err
	}
	return reqs, nil
}

// Body is a request's or response's body as RequestDetail reports it.
type Body struct {
	Bytes     int    `json:"bytes"`
	Inline    bool   `json:"inline"` // Text holds it (as far as MaxBodyChars)
	Truncated bool   `json:"truncated,omitempty"`
	Path      string `json:"path,omitempty"` // where SavePath wrote it
	Note      string `json:"note,omitempty"` // why it is absent
	Text      string `json:"text,omitempty"`
}

// RequestDetail is one request with its headers (credentials redacted
// unless Options.ShowSecrets), timing and bodies.
type RequestDetail struct {
	Request
	RequestHeaders  map[string]string `json:"requestHeaders,omitempty"`
	ResponseHeaders map[string]string `json:"responseHeaders,omitempty"`
	// Timing holds the phases in ms: blocked, dns, connect, ssl, send,
	// wait (for the first byte), receive; and total.
	Timing        map[string]float64 `json:"timing,omitempty"`
	Initiator     string             `json:"initiator,omitempty"`
	RemoteAddress string             `json:"remoteAddress,omitempty"`
	Protocol      string             `json:"protocol,omitempty"`
	RequestBody   *Body              `json:"requestBody,omitempty"`
	ResponseBody  *Body              `json:"responseBody,omitempty"`
}

// RequestOptions say how Request returns bodies. Nil inlines text bodies
// up to 10,000 characters.
type RequestOptions struct {
	MaxBodyChars int    // inline text bodies up to this many characters (at most 100,000)
	SavePath     string // write the response body whole to this file in the artifact dir instead
}

// Request reads one request of the tab's network log by its ID.
func (t *Tab) Request(ctx context.Context, id int, o *RequestOptions) (*RequestDetail, error) {
	if o == nil {
		o = &RequestOptions{}
	}
	var raw json.RawMessage
	if err := t.call(ctx, "get_network_request", map[string]any{"reqid": id, "maxBodyChars": o.MaxBodyChars, "savePath": o.SavePath}, &raw); err != nil {
		return nil, err
	}
	// The tool gives the duration as text ("21ms").
	var d struct {
		RequestDetail
		Duration string `json:"duration"`
	}
	if err := decode(raw, &d); err != nil {
		return nil, err
	}
	d.RequestDetail.Duration, _ = time.ParseDuration(d.Duration)
	return &d.RequestDetail, nil
}

// Mock is a rule that answers the tab's matching requests without the
// network (Action fulfill, the default, or fail), or passes them on with
// latency and faults (continue). The first matching rule wins; rules
// outlive reloads until ClearMocks. The URL policy still applies.
type Mock struct {
	URL          string            `json:"url"`                    // a glob over the whole URL (*/api/users*), or re:REGEX
	Method       string            `json:"method,omitempty"`       // only this method; any when ""
	ResourceType string            `json:"resourceType,omitempty"` // only this type: fetch, xhr, document, …
	Action       string            `json:"action,omitempty"`       // fulfill (default), fail or continue
	Status       int               `json:"status,omitempty"`       // fulfill: the status; 200 when 0
	Headers      map[string]string `json:"headers,omitempty"`      // fulfill: response headers
	// Body, BodyPath (a file in the artifact dir) or JSON (a value sent
	// as JSON, with its content type) is the fulfilled body. Without
	// Options.AllowEval a body must be data (JSON, text, images), not a
	// document or script, else EVAL_DISABLED.
	Body     string  `json:"body,omitempty"`
	BodyPath string  `json:"bodyPath,omitempty"`
	JSON     any     `json:"json,omitempty"`
	Reason   string  `json:"reason,omitempty"`   // fail (and FailRate): Failed (default), ConnectionRefused, TimedOut, …
	Delay    int     `json:"delayMs,omitempty"`  // ms to wait before answering
	FailRate float64 `json:"failRate,omitempty"` // continue: fail this share of requests, 0–1
	Seed     uint64  `json:"seed,omitempty"`     // makes FailRate repeatable
	Times    int     `json:"times,omitempty"`    // expire after this many hits; 0 never
	// Scope is "tab" (the default) or "context": every tab of the tab's
	// browser context.
	Scope string `json:"scope,omitempty"`
}

// MockRule is a mock rule as cdpkit keeps it.
type MockRule struct {
	ID           int               `json:"id"`
	URL          string            `json:"url"`
	Method       string            `json:"method,omitempty"`
	ResourceType string            `json:"resourceType,omitempty"`
	Action       string            `json:"action"`
	Status       int               `json:"status,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Reason       string            `json:"reason,omitempty"`
	FailRate     float64           `json:"failRate,omitempty"`
	Times        int               `json:"times,omitempty"`
	Scope        string            `json:"scope"`
	Tab          string            `json:"tab"` // the ID of the tab it was made on
	DelayMs      int64             `json:"delayMs,omitempty"`
	BodyBytes    int               `json:"bodyBytes,omitempty"`
	Hits         int               `json:"hits"`
	Expired      bool              `json:"expired,omitempty"` // its Times are used up
}

// Mock adds a mock rule for requests the tab sends from now on (reload
// to mock what it already loaded) and returns it.
func (t *Tab) Mock(ctx context.Context, m Mock) (*MockRule, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, &Error{Code: "INVALID_ARGS", Message: "mock: " + err.Error()}
	}
	args := map[string]any{}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, &Error{Code: "INVALID_ARGS", Message: "mock: " + err.Error()}
	}
	var out struct {
		Mock MockRule `json:"mock"`
	}
	if err := t.call(ctx, "mock_request", args, &out); err != nil {
		return nil, err
	}
	return &out.Mock, nil
}

// Mocks lists the mock rules of every tab, in match order.
func (b *Browser) Mocks(ctx context.Context) ([]MockRule, error) {
	res, err := b.run(ctx, "list_mocks", nil)
	if err != nil {
		return nil, err
	}
	rules := []MockRule{}
	if err := decode(res.Rows, &rules); err != nil {
		return nil, err
	}
	return rules, nil
}

// ClearMocks removes the mock rules with these IDs, or every rule that
// applies to the tab when none are given, and returns the IDs removed.
func (t *Tab) ClearMocks(ctx context.Context, ids ...int) ([]int, error) {
	var out struct {
		Cleared []int `json:"cleared"`
	}
	args := map[string]any{}
	if len(ids) > 0 {
		args["ids"] = ids
	}
	if err := t.call(ctx, "clear_mocks", args, &out); err != nil {
		return nil, err
	}
	return out.Cleared, nil
}
