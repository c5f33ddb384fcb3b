package tools

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// Request log listing.
const (
	defaultNetPageSize = 50
	maxNetPageSize     = 200
	// netLineURL caps a URL in a list line.
	netLineURL = 90
	// defaultBodyChars and maxBodyChars bound a body inlined by
	// get_network_request.
	defaultBodyChars = 10_000
	maxBodyChars     = 100_000
)

// resourceTypes are the resource types a filter may name.
var resourceTypes = []string{"document", "stylesheet", "image", "media", "font", "script", "texttrack", "xhr", "fetch",
	"prefetch", "eventsource", "websocket", "manifest", "signedexchange", "ping", "cspviolationreport", "preflight", "fedcm", "other"}

// statusClasses are the status filters.
var statusClasses = []string{"1xx", "2xx", "3xx", "4xx", "5xx", "failed", "pending"}

type listNetworkArgs struct {
	Target           string   `json:"target,omitempty"`
	ResourceTypes    []string `json:"resourceTypes,omitempty" jsonschema:"only these types: document, script, fetch, xhr, image, stylesheet, font, …"`
	URL              string   `json:"url,omitempty" jsonschema:"only urls containing this"`
	Status           []string `json:"status,omitempty" jsonschema:"only these: 2xx, 3xx, 4xx, 5xx, failed, pending"`
	PageSize         int      `json:"pageSize,omitempty" jsonschema:"requests per page (default 50, max 200)"`
	PageIdx          int      `json:"pageIdx,omitempty" jsonschema:"page to return, 0 = oldest (default 0)"`
	IncludePreserved bool     `json:"includePreserved,omitempty" jsonschema:"also the 2 navigations before the current one"`

	types, status []string // checked and lower-cased by check
}

type getNetworkArgs struct {
	Target   string `json:"target,omitempty"`
	ReqID    int    `json:"reqid" jsonschema:"request id: the N of #N in list_network_requests"`
	SavePath string `json:"savePath,omitempty" jsonschema:"write the response body whole to this file in the artifact dir instead of inlining it"`
	MaxChars int    `json:"maxBodyChars,omitempty" jsonschema:"inline text bodies up to this many chars (default 10000, max 100000)"`
}

func networkTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "list_network_requests",
			Description: "A tab's network requests, oldest first, one per line: `#12 GET 404 fetch 1.2kB 35ms host/path`. " +
				"Kept since cdpkit attached, for the last 3 navigations (current one unless includePreserved).",
			ReadOnly: true,
		}, listNetworkRequests),
		defineOn(Tool{
			Name: "get_network_request",
			Description: "One request by id: headers (secrets redacted), timing phases, initiator, request body and " +
				"response body (text inlined up to maxBodyChars; savePath writes it whole).",
			ReadOnly:   true,
			Idempotent: true,
		}, getNetworkRequest),
	}
}

type networkHeader struct {
	Total     int    `json:"total"`
	Returned  int    `json:"returned"`
	PageIdx   int    `json:"pageIdx"`
	Pages     int    `json:"pages"`
	Truncated bool   `json:"truncated"`
	Hint      string `json:"hint,omitempty"`
}

func (in *listNetworkArgs) check(context.Context, *Env) error {
	if in.PageSize < 0 || in.PageSize > maxNetPageSize || in.PageIdx < 0 {
		return errorf(InvalidArgs, false, fmt.Sprintf("pageSize is 1 to %d, pageIdx 0 or more", maxNetPageSize),
			"pageSize %d or pageIdx %d is out of range", in.PageSize, in.PageIdx)
	}
	for _, t := range in.ResourceTypes {
		if t = strings.ToLower(strings.TrimSpace(t)); !contains(resourceTypes, t) {
			return errorf(InvalidArgs, false, "resourceTypes are "+strings.Join(resourceTypes, ", "), "unknown resource type %q", t)
		}
		in.types = append(in.types, t)
	}
	for _, s := range in.Status {
		if s = strings.ToLower(strings.TrimSpace(s)); !contains(statusClasses, s) {
			return errorf(InvalidArgs, false, "status is one of "+strings.Join(statusClasses, ", "), "unknown status class %q", s)
		}
		in.status = append(in.status, s)
	}
	return nil
}

func listNetworkRequests(ctx context.Context, env *Env, d *door, in listNetworkArgs) (*Result, error) {
	size := in.PageSize
	if size == 0 {
		size = defaultNetPageSize
	}
	q := driver.RequestQuery{URL: in.URL, Preserved: in.IncludePreserved, Offset: in.PageIdx * size, Limit: size, Types: in.types, Status: in.status}
	tab := d.tab
	nl, err := role[driver.NetworkLog](env, tab, "the network log")
	if err != nil {
		return nil, err
	}
	reqs, total, err := nl.NetworkRequests(ctx, q)
	if err != nil {
		return nil, err
	}
	h := networkHeader{Total: total, Returned: len(reqs), PageIdx: in.PageIdx, Pages: (total + size - 1) / size}
	h.Truncated = len(reqs) < total
	var b strings.Builder
	nav := -1
	for _, r := range reqs {
		if in.IncludePreserved && r.Nav != nav {
			fmt.Fprintf(&b, "-- navigation %d\n", r.Nav)
			nav = r.Nav
		}
		b.WriteString(requestLine(r))
		b.WriteByte('\n')
	}
	if h.Truncated {
		h.Hint = fmt.Sprintf("pageIdx 0-%d pages through all; filter by resourceTypes, url or status", h.Pages-1)
	}
	return &Result{Data: h, Text: b.String(), Rows: reqs}, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// requestLine renders a request as one line:
// `#12 GET 404 fetch 1.2kB 35ms host/path`, the status "failed(reason)"
// for a failure and "…" while pending.
func requestLine(r driver.Request) string {
	status := "…"
	switch {
	case r.Failure != "":
		status = "failed(" + strings.TrimPrefix(r.Failure, "net::") + ")"
	case r.Status != 0:
		status = fmt.Sprint(r.Status)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s %s", r.ID, r.Method, status, r.Type)
	if r.Size > 0 {
		b.WriteString(" " + byteSize(r.Size))
	}
	if r.Duration > 0 {
		fmt.Fprintf(&b, " %dms", r.Duration.Milliseconds())
	}
	if r.Cached {
		b.WriteString(" cached")
	}
	b.WriteString(" " + shortURL(r.URL))
	return b.String()
}

// shortURL drops the scheme and cuts a URL to netLineURL characters.
func shortURL(raw string) string {
	s := raw
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		s = strings.TrimPrefix(strings.TrimPrefix(raw, "http://"), "https://")
	}
	if utf8.RuneCountInString(s) > netLineURL {
		s = string([]rune(s)[:netLineURL]) + "…"
	}
	return s
}

func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%dB", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1fkB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fMB", float64(n)/1e6)
}

type bodyInfo struct {
	Bytes     int    `json:"bytes"`
	Inline    bool   `json:"inline"`
	Truncated bool   `json:"truncated,omitempty"`
	Path      string `json:"path,omitempty"`
	Note      string `json:"note,omitempty"`
	Text      string `json:"text,omitempty"`
}

type networkDetail struct {
	driver.RequestDetail
	Duration     string    `json:"duration,omitempty"`
	RequestBody  *bodyInfo `json:"requestBody,omitempty"`
	ResponseBody *bodyInfo `json:"responseBody,omitempty"`
}

func (in *getNetworkArgs) check(_ context.Context, env *Env) error {
	if in.ReqID <= 0 {
		return errorf(InvalidArgs, false, "use an id from list_network_requests", "reqid must be 1 or more")
	}
	if in.MaxChars < 0 || in.MaxChars > maxBodyChars {
		return errorf(InvalidArgs, false, fmt.Sprintf("maxBodyChars is 1 to %d", maxBodyChars), "maxBodyChars %d is out of range", in.MaxChars)
	}
	if in.SavePath != "" {
		return env.Artifacts.Check(in.SavePath)
	}
	return nil
}

func getNetworkRequest(ctx context.Context, env *Env, d *door, in getNetworkArgs) (*Result, error) {
	limit := in.MaxChars
	if limit == 0 {
		limit = defaultBodyChars
	}
	tab := d.tab
	nl, err := role[driver.NetworkLog](env, tab, "the network log")
	if err != nil {
		return nil, err
	}
	rd, err := nl.NetworkRequest(ctx, in.ReqID)
	var re *driver.RequestError
	switch {
	case errors.As(err, &re) && re.Gone:
		return nil, errorf(InvalidArgs, false, "the log keeps the last 3 navigations' requests, 1000 at most; call list_network_requests",
			"network request %d was dropped from the log", in.ReqID)
	case errors.As(err, &re):
		return nil, errorf(InvalidArgs, false, "use an id from list_network_requests for this tab", "no network request %d in this tab", in.ReqID)
	case err != nil:
		return nil, err
	}
	if !env.ShowSecrets {
		rd.RequestHeaders = policy.RedactHeaders(rd.RequestHeaders)
		rd.ResponseHeaders = policy.RedactHeaders(rd.ResponseHeaders)
	}
	out := networkDetail{RequestDetail: rd}
	if rd.Duration > 0 {
		out.Duration = rd.Duration.Round(time.Millisecond).String()
	}
	if rd.HasBody {
		body, err := nl.RequestPostData(ctx, in.ReqID)
		switch {
		case errors.Is(err, driver.ErrBodyGone):
			out.RequestBody = &bodyInfo{Note: "the browser no longer has the body this request sent"}
		case err != nil:
			return nil, err
		default:
			out.RequestBody = inlineBody(body, headerValue(rd.RequestHeaders, "content-type"), limit)
		}
	}
	if rd.Done && rd.Failure == "" {
		body, binary, err := nl.ResponseBody(ctx, in.ReqID)
		switch {
		case errors.Is(err, driver.ErrBodyGone):
			out.ResponseBody = &bodyInfo{Note: "the browser no longer has this response's body (evicted, or a redirect)"}
		case err != nil:
			return nil, err
		case in.SavePath != "":
			path, err := env.Artifacts.WriteFile(in.SavePath, body)
			if err != nil {
				return nil, err
			}
			out.ResponseBody = &bodyInfo{Bytes: len(body), Path: path}
		case binary && !textType(rd.MIMEType):
			out.ResponseBody = &bodyInfo{Bytes: len(body), Note: "binary body: give savePath to write it to a file"}
		default:
			out.ResponseBody = inlineBody(body, rd.MIMEType, limit)
		}
	}
	return &Result{Data: out}, nil
}

// inlineBody puts a text body in the result, cut at limit characters; a
// body that is not text is only measured.
func inlineBody(body []byte, contentType string, limit int) *bodyInfo {
	bi := &bodyInfo{Bytes: len(body)}
	if !utf8.Valid(body) && !textType(contentType) {
		bi.Note = "binary body: give savePath to write it to a file"
		return bi
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit])
		bi.Truncated = true
		bi.Note = "cut at maxBodyChars; savePath writes it whole"
	}
	bi.Inline, bi.Text = true, s
	return bi
}

// textType reports a MIME type whose body reads as text.
func textType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(ct))
	}
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	return contains([]string{"application/json", "application/javascript", "application/xml", "application/x-www-form-urlencoded",
		"application/ecmascript", "image/svg+xml", "application/graphql"}, mt)
}

func headerValue(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
