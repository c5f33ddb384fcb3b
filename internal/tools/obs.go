package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
	"github.com/cdpkit/cdpkit/internal/telemetry"
)

// This file is the registry's one telemetry hook: Tool.Call starts a
// record with obsStart and ends it with obsEnd; the door notes the target
// tab (obsTarget). Only what is listed in telemetry.Outcome leaves here:
// never a call's arguments (typed text, values, cookies, headers), and a
// URL only through policy.RedactURL.

// obsOffs are the Off telemetries of envs without one, by logger (a
// *slog.Logger), so that a Go API user's calls are logged the same way.
var obsOffs sync.Map

func (env *Env) telemetry() *telemetry.Telemetry {
	if env.Telemetry != nil {
		return env.Telemetry
	}
	if t, ok := obsOffs.Load(env.Log); ok {
		return t.(*telemetry.Telemetry)
	}
	t, _ := obsOffs.LoadOrStore(env.Log, telemetry.Off(env.Log))
	return t.(*telemetry.Telemetry)
}

// obsStart starts recording a call of t: its span (a child of a client's
// traceparent in ctx), and a child span per step the browser names.
func (env *Env) obsStart(ctx context.Context, t *Tool, steps *driver.Steps) (context.Context, *telemetry.Call) {
	ctx, c := env.telemetry().StartCall(ctx, t.Name, env.obsSessionID(), obsPhase(t))
	steps.Watch(c.Step)
	return ctx, c
}

// obsTarget notes the tab the door resolved for the call ctx bounds.
func obsTarget(ctx context.Context, tab driver.TabDriver) {
	telemetry.CallFrom(ctx).SetTarget(tab.ID())
}

// obsEnd ends the record of a call with its result or error.
func obsEnd(c *telemetry.Call, args json.RawMessage, res *Result, err error) {
	o := telemetry.Outcome{Refs: -1, Chars: -1}
	if err != nil {
		o.Code = string(AsError(err).Code)
		if o.Code == string(RefStale) {
			o.Ref = obsRef(args)
		}
	}
	if res != nil {
		var h *snapshotHeader
		switch d := res.Data.(type) {
		case snapshotHeader:
			h = &d
		case *snapshotHeader:
			h = d
		}
		if h != nil {
			o.Refs, o.Chars, o.URL = h.Refs, utf8.RuneCountInString(res.Text), h.URL
		} else {
			o.URL = obsURL(res.Data)
		}
		o.URL = policy.RedactURL(o.URL)
	}
	c.End(o)
}

// obsPhase is the phase of the log schema a tool belongs to.
func obsPhase(t *Tool) string {
	switch {
	case t.Name == "new_page" || strings.HasPrefix(t.Name, "navigate"):
		return "navigate"
	case t.Name == "take_snapshot" || t.Name == "take_screenshot":
		return "snapshot"
	case t.ReadOnly:
		return "verify"
	}
	return "interact"
}

// obsRef is the ref a call named: its uid argument. A ref is an id the
// snapshot printed, never page content.
func obsRef(args json.RawMessage) string {
	var a struct {
		UID string `json:"uid"`
	}
	if json.Unmarshal(args, &a) != nil || len(a.UID) > 32 {
		return ""
	}
	return a.UID
}

// obsURL finds the page URL a result reports: a URL field or "url" key,
// else that of its changes section.
func obsURL(data any) string {
	if m, ok := data.(map[string]any); ok {
		if u, ok := m["url"].(string); ok {
			return u
		}
		return ""
	}
	if u, ok := urlField(data); ok {
		return u
	}
	if h, ok := data.(changesHolder); ok && h.changes() != nil {
		return h.changes().URL
	}
	return ""
}

// urlField is the URL field of a result's data, if it is a struct (or a
// pointer to one) with one.
func urlField(data any) (string, bool) {
	v := reflect.ValueOf(data)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return "", false
	}
	if f := v.FieldByName("URL"); f.IsValid() && f.Kind() == reflect.String {
		return f.String(), true
	}
	return "", false
}

// ObsSession reports the session whose calls env runs (env.SessionID,
// else env.Client) to the telemetry as opened now, and closed, with a
// telemetry.Reason…, by the returned func. The servers call it once a
// session is real (an MCP server may be made per request before one is).
func (env *Env) ObsSession() (closed func(reason string)) {
	t, id := env.telemetry(), env.obsSessionID()
	t.SessionOpened(id)
	return func(reason string) { t.SessionClosed(id, reason) }
}

// obsSessionID is the session's name in logs and spans.
func (env *Env) obsSessionID() string {
	if env.SessionID != "" {
		return env.SessionID
	}
	return env.Client
}
