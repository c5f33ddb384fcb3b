package driver

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Mock rules: the fake backend. Rules answer a tab's requests instead of
// the network: each request a backend intercepts is answered by the first
// live rule that matches it (see MockTable), or let go on untouched. A
// backend judges a document request by the URL policy before any rule
// answers it, so a mock never makes a blocked URL reachable.
const (
	// MaxMockDelay bounds a rule's delay.
	MaxMockDelay = 60 * time.Second
	// MaxMockBody bounds a fulfilled body.
	MaxMockBody = 10 << 20
)

// Mock actions.
const (
	MockFulfill  = "fulfill"
	MockFail     = "fail"
	MockContinue = "continue"
)

// MockErrorReasons are the network errors a rule can fail a request with.
var MockErrorReasons = []string{"Failed", "Aborted", "TimedOut", "AccessDenied", "ConnectionClosed", "ConnectionReset",
	"ConnectionRefused", "ConnectionAborted", "ConnectionFailed", "NameNotResolved", "InternetDisconnected",
	"AddressUnreachable", "BlockedByClient", "BlockedByResponse"}

// MockRule says which requests to answer and how.
type MockRule struct {
	// URL is a glob over the whole URL (* matches any run of characters,
	// ? one), or a regular expression after "re:".
	URL          string            `json:"url"`
	Method       string            `json:"method,omitempty"`       // upper case; any when empty
	ResourceType string            `json:"resourceType,omitempty"` // lower case, as in [Request]; any when empty
	Action       string            `json:"action"`                 // MockFulfill, MockFail or MockContinue
	Status       int               `json:"status,omitempty"`       // fulfill: the status, 200 when 0
	Headers      map[string]string `json:"headers,omitempty"`      // fulfill: response headers
	Body         []byte            `json:"-"`                      // fulfill: the body
	Reason       string            `json:"reason,omitempty"`       // fail, and failRate: one of MockErrorReasons ("Failed" when empty)
	Delay        time.Duration     `json:"-"`                      // wait this long before answering
	FailRate     float64           `json:"failRate,omitempty"`     // continue: fail this share of requests, 0–1
	Seed         uint64            `json:"seed,omitempty"`         // makes failRate's draws repeatable
	Times        int               `json:"times,omitempty"`        // expire after this many hits; 0 never
	// Context applies the rule to every tab of the tab's browser context,
	// not only to the tab.
	Context bool `json:"-"`
}

// Mock is a kept rule, as MockTable reports it.
type Mock struct {
	ID int `json:"id"`
	MockRule
	Scope     string `json:"scope"` // "tab" or "context"
	Tab       string `json:"tab"`   // the tab it was made on
	DelayMs   int64  `json:"delayMs,omitempty"`
	BodyBytes int    `json:"bodyBytes,omitempty"`
	Hits      int    `json:"hits"`
	Expired   bool   `json:"expired,omitempty"` // its times are used up
}

// Check validates r, returning an error that wraps ErrInvalidArgument
// naming the bad field.
func (r *MockRule) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
	}
	switch r.Action {
	case MockFulfill, MockFail, MockContinue:
	default:
		return bad("action %q is not fulfill, fail or continue", r.Action)
	}
	if r.Method != "" && !methodRE.MatchString(r.Method) {
		return bad("method %q is not an HTTP method", r.Method)
	}
	if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
		return bad("status %d is not 100 to 599", r.Status)
	}
	if r.Reason != "" && !slices.Contains(MockErrorReasons, r.Reason) {
		return bad("reason %q is not one of %s", r.Reason, strings.Join(MockErrorReasons, ", "))
	}
	if r.FailRate < 0 || r.FailRate > 1 {
		return bad("failRate %v is not between 0 and 1", r.FailRate)
	}
	if r.FailRate > 0 && r.Action != MockContinue {
		return bad("failRate goes with action continue")
	}
	if r.Delay < 0 || r.Delay > MaxMockDelay {
		return bad("delayMs %d is not 0 to %d", r.Delay.Milliseconds(), MaxMockDelay.Milliseconds())
	}
	if r.Times < 0 {
		return bad("times %d is negative", r.Times)
	}
	if len(r.Body) > MaxMockBody {
		return bad("the body is %d bytes, over %d", len(r.Body), MaxMockBody)
	}
	if r.Action != MockFulfill && (len(r.Body) > 0 || len(r.Headers) > 0 || r.Status != 0) {
		return bad("status, headers and body go with action fulfill")
	}
	for k, v := range r.Headers {
		if !isToken(k) {
			return bad("header name %q is not an HTTP token (letters, digits and !#$%%&'*+-.^_`|~)", k)
		}
		if i := strings.IndexFunc(v, isCTL); i >= 0 {
			return bad("header %s's value has a control character (%U) at byte %d", k, v[i], i)
		}
	}
	return nil
}

var methodRE = regexp.MustCompile(`^[A-Z]{1,16}$`)

// isToken reports whether s is an HTTP token (RFC 9110), as a header name
// must be.
func isToken(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// isCTL reports a control character, which no header value may hold
// (a horizontal tab aside): NUL, CR, LF, DEL….
func isCTL(r rune) bool { return r != '\t' && (r < 0x20 || r == 0x7f) }

// ErrSharedScope means a session asked for a rule over a browser context
// in which other sessions have tabs. It comes wrapped with
// ErrInvalidArgument.
var ErrSharedScope = errors.New("browser: the scope is shared with other sessions")

// MockQuery selects rules for a backend's Mocks and ClearMocks.
type MockQuery struct {
	Scope *Scope // only rules made by this scope's tabs; nil means all
	IDs   []int  // only these rules; all when empty
	Tab   string // only rules that apply to the tab of this ID; "" means any
}

// MaxMockRules bounds the mock rules a browser keeps at once, expired ones
// included.
const MaxMockRules = 100

// CompileURLPattern checks a rule's url pattern: a glob over the whole URL,
// or "re:" and a regular expression. A malformed one wraps
// ErrInvalidArgument.
func CompileURLPattern(p string) (func(string) bool, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return nil, fmt.Errorf("%w: the url pattern is empty", ErrInvalidArgument)
	case len(p) > 2000:
		return nil, fmt.Errorf("%w: the url pattern is over 2000 characters", ErrInvalidArgument)
	case strings.ContainsAny(p, " \t\r\n"):
		return nil, fmt.Errorf("%w: the url pattern %q contains whitespace", ErrInvalidArgument, p)
	}
	if re, ok := strings.CutPrefix(p, "re:"); ok {
		r, err := regexp.Compile(re)
		if err != nil {
			return nil, fmt.Errorf("%w: the url regex %q does not compile: %s", ErrInvalidArgument, re, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		return r.MatchString, nil
	}
	var b strings.Builder
	b.WriteString("^")
	for _, c := range p {
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	r := regexp.MustCompile(b.String())
	return r.MatchString, nil
}
