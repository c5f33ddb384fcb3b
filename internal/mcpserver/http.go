package mcpserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxBody bounds an HTTP request body.
const MaxBody = 4 << 20

// HTTPOptions configure the streamable HTTP front-end.
type HTTPOptions struct {
	// Token is the bearer token every request must carry. Required.
	Token string
	// Hosts are extra Host names accepted besides the loopback names
	// (localhost, 127.0.0.1, ::1), for a deliberate non-loopback bind.
	Hosts []string
	// SessionTimeout closes a session after this long without a request,
	// which releases its tabs; zero means sessions end only when closed.
	SessionTimeout time.Duration
	Log            *slog.Logger
}

// NewHTTPHandler serves MCP over streamable HTTP, one server per session
// from newServer, behind checks that run before any MCP processing:
//
//   - Host must be a loopback name (or one of o.Hosts): DNS rebinding.
//   - Origin, when present, must be a loopback origin, never "null".
//   - Authorization must be "Bearer <token>", compared in constant time.
//   - POST bodies must be application/json and at most MaxBody bytes.
//
// Failures get 403, 401, 415 or 413 and run nothing.
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
	hosts := map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	for _, h := range o.Hosts {
		hosts[strings.ToLower(h)] = true
	}
	want := sha256.Sum256([]byte(o.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[hostname(r.Host)] {
			http.Error(w, "forbidden: Host is not an allowed name", http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			u, err := url.Parse(origin)
			if origin == "null" || err != nil || !hosts[strings.ToLower(u.Hostname())] {
				http.Error(w, "forbidden: Origin is not allowed", http.StatusForbidden)
				return
			}
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cdpkit"`)
			http.Error(w, "unauthorized: send the token as the header \"Authorization: Bearer <token>\" (cdpkit serve prints it on stderr at start, or keeps it in --token-file; cdpkit serve --print-config claude|cursor|codex prints a ready registration)", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				http.Error(w, "unsupported media type: POST application/json", http.StatusUnsupportedMediaType)
				return
			}
			if r.ContentLength > MaxBody {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		}
		protected.ServeHTTP(w, r)
	})
}

// hostname returns the lower-case host of a Host header, without port or
// IPv6 brackets.
func hostname(hostport string) string {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}
