package mcpserver

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// MaxBody bounds an HTTP request body.
const MaxBody = 4 << 20

// Defaults for HTTPOptions' limits.
const (
	// DefaultMaxSessions bounds the MCP sessions open at once.
	DefaultMaxSessions = 64
	// DefaultRateLimit and DefaultRateBurst bound the requests of one
	// session (and those of the token outside any session, such as
	// initialize): this many per second on average, this many at once.
	DefaultRateLimit = 50
	DefaultRateBurst = 200
	// DefaultBodyTimeout bounds reading one request body.
	DefaultBodyTimeout = 30 * time.Second
)

// HTTPOptions configure the streamable HTTP front-end.
type HTTPOptions struct {
	// Token is the bearer token every request must carry. Required.
	Token string
	// Hosts are extra Host names accepted besides the loopback names
	// (localhost, 127.0.0.1, ::1) and the address a connection arrived
	// at, for a deliberate non-loopback bind.
	Hosts []string
	// SessionTimeout closes a session after this long without a request,
	// which releases its tabs; zero means sessions end only when closed.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions open at once; a new one over it is
	// refused with LIMIT_REACHED. Zero means DefaultMaxSessions, negative
	// no bound.
	MaxSessions int
	// RateLimit is how many requests per second one session may make on
	// average, RateBurst how many at once; the token's requests outside
	// a session share one more such budget. More get 429 with
	// LIMIT_REACHED. Zero means the defaults, a negative RateLimit no
	// bound. Counting per session, not per token, lets sessions that
	// share a token (every agent behind one proxy) each have the rate.
	RateLimit float64
	RateBurst int
	// BodyTimeout bounds reading one request body; zero means
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxConnsPerSession bounds the requests of one MCP session (by its
	// Mcp-Session-Id) in progress at once, its event stream included; one
	// more is refused with LIMIT_REACHED (a JSON-RPC error answering a
	// POST, 503 for a GET); a DELETE, which ends the session, never is.
	// Zero means DefaultMaxConnsPerSession, negative no bound.
	MaxConnsPerSession int
	Log                *slog.Logger
}

// NewHTTPHandler serves MCP over streamable HTTP, one server per session
// from newServer, behind checks that run on the request's headers, before
// its body is read or any MCP processing:
//
//   - Host must be a loopback name, one of o.Hosts, or the address the
//     connection arrived at as an IP literal: DNS rebinding.
//   - Origin, when present, must name one of those too, never "null".
//   - Authorization must be "Bearer <token>", compared in constant time.
//   - The connection must fit under LimitListener's MaxConns, if it came
//     through one and is new to the token.
//   - The session's (or the token's, outside a session) request rate
//     must be within RateLimit/RateBurst.
//   - POST bodies must be application/json, at most MaxBody bytes, and
//     arrive within BodyTimeout.
//   - A new session must fit under MaxSessions, a request of a session
//     under MaxConnsPerSession.
//
// Failures get 403, 401, 503, 429, 415, 413 or 408 and run nothing; the
// connection of a refused request is closed, without waiting for the rest
// of its body. A session over MaxSessions, or a session's request over
// MaxConnsPerSession, gets a JSON-RPC error.
func NewHTTPHandler(newServer func(*http.Request) *mcp.Server, o HTTPOptions) http.Handler {
	inner := mcp.NewStreamableHTTPHandler(newServer, &mcp.StreamableHTTPOptions{
		Logger:              o.Log,
		MaxRequestBodyBytes: MaxBody,
		SessionTimeout:      o.SessionTimeout,
	})
	// Set explicitly (the SDK's own option is deprecated and off when
	// nil): browsers' cross-origin requests are refused by Fetch metadata
	// too, besides the Origin check below.
	protected := http.NewCrossOriginProtection().Handler(inner)
	hosts := newHostPolicy(o.Hosts)
	want := sha256.Sum256([]byte(o.Token))
	bodyTimeout := o.BodyTimeout
	if bodyTimeout <= 0 {
		bodyTimeout = DefaultBodyTimeout
	}
	rates := newRateLimiter(o.RateLimit, o.RateBurst)
	sessions := newSessionCount(o.MaxSessions, o.SessionTimeout)
	inFlight := newSessionConns(o.MaxConnsPerSession)
	refuse := func(w http.ResponseWriter, msg string, status int) {
		refuseAndClose(w, func() { http.Error(w, msg, status) })
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := hosts.refusal(r); msg != "" {
			refuse(w, msg, http.StatusForbidden)
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cdpkit"`)
			refuse(w, "unauthorized: send the token as the header \"Authorization: Bearer <token>\" (cdpkit serve prints it on stderr at start, or keeps it in --token-file; cdpkit serve --print-config claude|cursor|codex prints a ready registration)", http.StatusUnauthorized)
			return
		}
		if ok, max := authenticated(r); !ok {
			refuseAndClose(w, func() {
				limitError(w, http.StatusServiceUnavailable, nil, fmt.Sprintf("%d connections with the token are open, the most --max-conns allows", max),
					"close idle connections or sessions, or raise cdpkit serve's --max-conns")
			})
			return
		}
		// A known session has a budget of its own; anything else (a new
		// session, an id the server never issued) spends the token's.
		rateKey := string(sum[:])
		if id := r.Header.Get(sessionHeader); id != "" && sessions.known(id) {
			rateKey += id
		}
		if wait := rates.take(rateKey); wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			refuseAndClose(w, func() {
				limitError(w, http.StatusTooManyRequests, nil, fmt.Sprintf("more than %g requests per second (burst %d) %s", rates.rate, rates.burst, rateScope(r)),
					"wait for Retry-After seconds, or raise cdpkit serve's --rate-limit")
			})
			return
		}
		var body []byte
		if r.Method == http.MethodPost {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				refuse(w, "unsupported media type: POST application/json", http.StatusUnsupportedMediaType)
				return
			}
			if r.ContentLength > MaxBody {
				refuse(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			var status int
			body, status = readBody(w, r, bodyTimeout)
			if status != 0 {
				refuse(w, http.StatusText(status), status)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			if r.Header.Get(sessionHeader) == "" {
				if !sessions.admit() {
					limitError(w, http.StatusOK, requestID(body), fmt.Sprintf("%d MCP sessions are open, the most --max-sessions allows", sessions.max),
						"close an idle session (HTTP DELETE with its Mcp-Session-Id) or let one time out (--session-timeout), or raise cdpkit serve's --max-sessions")
					return
				}
				// Settled as the answer's header goes out, not when the
				// handler returns: the client may send its next request
				// (a second session) in between.
				settle := sync.OnceFunc(func() { sessions.opened(w.Header().Get(sessionHeader)) })
				protected.ServeHTTP(&statusWriter{ResponseWriter: w, onHeader: settle}, r)
				settle()
				return
			}
		}
		id := r.Header.Get(sessionHeader)
		if id != "" && r.Method != http.MethodDelete { // ending a session only frees
			if !inFlight.acquire(id) {
				// A POST's refusal is a JSON-RPC error with its id, which
				// MCP clients show; they show only the status of a 503.
				status := http.StatusServiceUnavailable
				if r.Method == http.MethodPost {
					status = http.StatusOK
				}
				limitError(w, status, requestID(body), fmt.Sprintf("this session has %d requests in progress, the most --max-conns-per-session allows", inFlight.max),
					"wait for the session's calls to finish, or raise cdpkit serve's --max-conns-per-session")
				return
			}
			defer inFlight.release(id)
		}
		sessions.seen(id)
		// A session the answer ends is forgotten as the header goes out,
		// before the client can ask for a new one.
		sw := &statusWriter{ResponseWriter: w}
		sw.onHeader = func() {
			if id != "" && (sw.status == http.StatusNotFound || (r.Method == http.MethodDelete && sw.status < 300)) {
				sessions.closed(id)
			}
		}
		protected.ServeHTTP(sw, r)
		sw.header(http.StatusOK) // net/http sends 200 for a handler that wrote nothing
	})
}

const sessionHeader = "Mcp-Session-Id"

// refuseAndClose writes a refusal with answer and closes the connection
// without reading the rest of the request body: net/http would otherwise
// wait to discard it, and a client trickling a body would hold the
// connection open.
func refuseAndClose(w http.ResponseWriter, answer func()) {
	w.Header().Set("Connection", "close")
	answer()
	rc := http.NewResponseController(w)
	rc.Flush()
	rc.SetReadDeadline(time.Now())
}

// readBody reads r's body within timeout, bounded by MaxBody; a non-zero
// status says why it could not.
func readBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) ([]byte, int) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(timeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	rc.SetReadDeadline(time.Time{})
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, http.StatusRequestEntityTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, http.StatusRequestTimeout
	case err != nil:
		return nil, http.StatusBadRequest
	}
	return body, 0
}

// limitError answers with a JSON-RPC error whose data is a LIMIT_REACHED
// tool error.
func limitError(w http.ResponseWriter, status int, id json.RawMessage, msg, hint string) {
	e := &tools.Error{Code: tools.LimitReached, Message: msg, Recoverable: true, Hint: hint}
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32000, "message": e.Error() + " (hint: " + hint + ")", "data": e}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// requestID returns the id of a JSON-RPC request body, if any.
func requestID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(body, &m)
	return m.ID
}

// statusWriter notes the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status   int
	onHeader func() // if set, called once just before the header is sent
}

func (w *statusWriter) header(code int) {
	if w.status == 0 {
		w.status = code
		if w.onHeader != nil {
			w.onHeader()
		}
	}
}

func (w *statusWriter) WriteHeader(code int) {
	w.header(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.header(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		w.header(http.StatusOK)
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sessionCount tracks the open sessions by id, as the SDK does: a session
// ends when it is deleted, answered 404, or idle for the session timeout.
type sessionCount struct {
	max  int // <= 0: no bound
	idle time.Duration

	mu       sync.Mutex
	open     map[string]time.Time // guarded by mu; last request per session
	starting int                  // guarded by mu; admitted, id not yet known
}

func newSessionCount(max int, idle time.Duration) *sessionCount {
	if max == 0 {
		max = DefaultMaxSessions
	}
	return &sessionCount{max: max, idle: idle, open: map[string]time.Time{}}
}

// admit reserves room for a new session; opened settles it.
func (s *sessionCount) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.max <= 0 {
		s.starting++
		return true
	}
	if s.idle > 0 {
		for id, last := range s.open {
			if time.Since(last) > s.idle {
				delete(s.open, id)
			}
		}
	}
	if len(s.open)+s.starting >= s.max {
		return false
	}
	s.starting++
	return true
}

// opened settles an admitted request: id is the session it created, or "".
func (s *sessionCount) opened(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starting--
	if id != "" {
		s.open[id] = time.Now()
	}
}

// known reports whether id is a session open now.
func (s *sessionCount) known(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.open[id]
	return ok
}

func (s *sessionCount) seen(id string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.open[id]; ok {
		s.open[id] = time.Now()
	}
}

func (s *sessionCount) closed(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, id)
}

// sessionConns counts the requests in progress per session id.
type sessionConns struct {
	max int // <= 0: no bound

	mu sync.Mutex
	n  map[string]int // guarded by mu
}

func newSessionConns(max int) *sessionConns {
	if max == 0 {
		max = DefaultMaxConnsPerSession
	}
	return &sessionConns{max: max, n: map[string]int{}}
}

// acquire counts one more request of session id; it reports false, and
// counts nothing, if that would exceed the bound.
func (s *sessionConns) acquire(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.max > 0 && s.n[id] >= s.max {
		return false
	}
	s.n[id]++
	return true
}

func (s *sessionConns) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[id]--; s.n[id] <= 0 {
		delete(s.n, id)
	}
}

// rateLimiter is a token bucket per key (the token and a session id).
type rateLimiter struct {
	rate  float64 // per second; <= 0: no limit
	burst int

	mu      sync.Mutex
	buckets map[string]*bucket // guarded by mu
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(rate float64, burst int) *rateLimiter {
	if rate == 0 {
		rate = DefaultRateLimit
	}
	if burst <= 0 {
		burst = DefaultRateBurst
	}
	return &rateLimiter{rate: rate, burst: burst, buckets: map[string]*bucket{}}
}

// take spends one request of key's budget; it returns zero, or how long
// until one is available.
func (l *rateLimiter) take(key string) time.Duration {
	if l.rate <= 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= maxBuckets {
			l.prune(now)
		}
		b = &bucket{tokens: float64(l.burst), last: now}
		l.buckets[key] = b
	}
	b.tokens = min(float64(l.burst), b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	}
	b.tokens--
	return 0
}

// rateScope says whose requests a rate refusal counted.
func rateScope(r *http.Request) string {
	if r.Header.Get(sessionHeader) != "" {
		return "in this session"
	}
	return "with this token outside any session"
}

// maxBuckets is how many buckets a rateLimiter holds before it drops the
// full ones (those of sessions that ended or paused); there is one per
// open session and one per token.
const maxBuckets = 1024

// prune drops the buckets that have refilled: forgetting them changes
// nothing. The caller holds l.mu.
func (l *rateLimiter) prune(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= float64(l.burst) {
			delete(l.buckets, k)
		}
	}
}
