package tools

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/lease"
	"github.com/cdpkit/cdpkit/internal/lighthouse"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/telemetry"
)

// Env is what handlers work with. It is shared by all calls and must not be
// changed after the first call.
type Env struct {
	Browsers  *driver.Manager
	Artifacts *policy.Artifacts // where tools write files
	Log       *slog.Logger
	// Timeout bounds each tool call that gives no timeout_ms; zero means
	// DefaultTimeout, and more than MaxTimeout means MaxTimeout.
	Timeout time.Duration
	// QueueLimit is how many state-changing calls may wait for one tab;
	// zero means driver.DefaultQueueLimit.
	QueueLimit int
	// MaxScreenshotPixels and MaxImageBytes bound a screenshot's width ×
	// height and encoded size; zero means driver.DefaultMaxScreenshotPixels
	// and driver.DefaultMaxImageBytes.
	MaxScreenshotPixels int
	MaxImageBytes       int
	// UploadRoots are directories upload_file may read files from, besides
	// the artifact dir (always a root).
	UploadRoots policy.UploadRoots
	// CallerDirs lets a call's directory (WithCallerDir, sent by the CLI)
	// be an upload root for that call when it is a safe root. Only the
	// CLI's daemon, on its private socket, sets it.
	CallerDirs bool
	// AllowEval enables evaluate_script, which runs the agent's JavaScript
	// in the page; it is off by default.
	AllowEval bool
	// DialogPolicy says which JavaScript dialogs cdpkit answers by itself;
	// "" means driver.DialogsReport.
	DialogPolicy driver.DialogPolicy
	// URLPolicy checks the URLs tools are asked to open, before the
	// browser's own guard does; nil means the defaults of policy.Policy.
	URLPolicy *policy.Policy
	// ShowSecrets shows credential headers (policy.SecretHeader) in
	// network tool results instead of redacting them (--show-secrets).
	ShowSecrets bool
	// Scope is the client's own tabs (one per HTTP session); nil means
	// every tab (stdio, the CLI daemon).
	Scope *driver.Scope
	// Leases is the tab lease store shared by every cdpkit process on the
	// machine; nil turns leases off (claim_page fails, lease is refused).
	Leases *lease.Store
	// Client names the client inside this process that calls come from,
	// which with the pid is who owns a lease: "stdio", "cli:SESSION", or
	// a fresh id per HTTP session (set by Scoped).
	Client string
	// SessionID names the session in logs and spans: an HTTP session's
	// Mcp-Session-Id, which its client sees; "" means Client. It is kept
	// apart from Client because lease labels, which other sessions see,
	// carry Client, and a session id with the token would let them speak
	// for the session.
	SessionID string
	// RequireLease is strict mode: a call on a tab nobody holds acquires
	// an auto lease for its owner, new_page claims the tab it opens, and
	// list_pages and list_leases reap tabs abandoned by dead owners.
	RequireLease bool
	// LeaseTTL is a new lease's ttl when the call gives none; zero means
	// the store's.
	LeaseTTL time.Duration
	// Lighthouse installs and runs Lighthouse for lighthouse_audit; nil
	// means one that installs into lighthouse.DefaultCacheDir and finds
	// node and npm on PATH.
	Lighthouse *lighthouse.Runner
	// FFmpeg encodes screen recordings; "" means $CDPKIT_FFMPEG, else
	// ffmpeg on PATH. RecordingMax caps a recording ("500MB,10m"); ""
	// means $CDPKIT_RECORDING_MAX, else the record package's defaults.
	FFmpeg       string
	RecordingMax string
	// Telemetry records each call (a log record, a span, metrics) and
	// each scoped session; nil means records on Log only (telemetry.Off).
	Telemetry *telemetry.Telemetry
}

// Scoped returns a copy of env whose calls see, resolve and open only
// their own tabs, such as one MCP session's (a tab of another scope
// matches nothing), and the function that closes those tabs (and, with
// isolate, their own browser context: cookies, storage and cache apart
// from other scopes') when the scope ends. The scope may have maxTabs tabs
// open at once (0: no bound); one more is LIMIT_REACHED. Close's ctx
// bounds the closing; it does nothing when no browser runs.
//
// With isolate the scope's files live apart too: its artifact dir is
// sessions/<client id>/ of env's (downloads included), it can read and
// upload only what is in there (and in the operator's upload roots), and
// the folder is removed at the end if the session saved nothing.
func (env *Env) Scoped(isolate bool, maxTabs int) (scoped *Env, close func(ctx context.Context)) {
	e := *env
	e.Client = newClientID()
	so := &driver.ScopeOptions{Isolate: isolate, MaxTabs: maxTabs}
	var own *policy.Artifacts
	if isolate && env.Artifacts != nil {
		var err error
		if own, err = env.Artifacts.Sub(filepath.Join("sessions", e.Client)); err != nil {
			// The session still runs; writing a file reports the cause.
			env.Log.Warn("making the session's artifact dir", "err", err)
			own = nil
		} else {
			e.Artifacts = own
			so.DownloadDir = filepath.Join(own.Dir(), "downloads")
		}
	}
	e.Scope = driver.NewScope(so)
	return &e, func(ctx context.Context) {
		e.forgetPageIDs()
		if d := env.Browsers.CurrentDriver(); d != nil {
			d.CloseScope(ctx, e.Scope)
			e.dropOwnerLeases(ctx, d)
		}
		if own != nil {
			own.CloseAndPrune()
		}
	}
}
