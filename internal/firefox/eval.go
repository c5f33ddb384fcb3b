package firefox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cdpkit/cdpkit/internal/driver"
)

var evalJS = ownScript("eval")

// Evaluate implements driver.TabDriver: the function runs in the page
// (script.callFunction) with its arguments, elements passed by their
// refs, and its value is serialized in the page within lim by the same
// serializer as on Chromium.
func (t *Tab) Evaluate(ctx context.Context, fn string, args []driver.EvalArg, lim driver.EvalLimits) (*driver.EvalResult, error) {
	if err := t.CheckDialog(); err != nil {
		return nil, err
	}
	spec := make([]map[string]any, len(args))
	var nodes []any
	for i, a := range args {
		if a.Ref != "" {
			el, err := t.element(ctx, a.Ref, "")
			if err != nil {
				return nil, err
			}
			spec[i] = map[string]any{"node": len(nodes)}
			nodes = append(nodes, el)
			continue
		}
		v := json.RawMessage("null")
		if len(a.Value) > 0 {
			v = a.Value
		}
		spec[i] = map[string]any{"value": v}
	}
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("firefox: encoding arguments: %w", err)
	}
	limits, _ := json.Marshal(map[string]int{"depth": lim.Depth, "items": lim.Items, "chars": lim.Chars})
	// The wrapper parses the JSON arguments and limits and binds the
	// serializer, so that only strings and nodes cross the protocol.
	wrapper := fmt.Sprintf(`async function(fnSource, spec, limits, ...nodes) {
		const run = (%s);
		const serialize = (%s);
		return JSON.stringify(await run(fnSource, JSON.parse(spec), JSON.parse(limits), serialize, ...nodes));
	}`, evalJS, sharedScript("serialize"))
	callArgs := append([]any{str(fn), str(string(specJSON)), str(string(limits))}, nodes...)
	driver.Step(ctx, "running the function")
	opened := t.opened()
	type outcome struct {
		rv  *remoteValue
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		rv, err := t.callRaw(ctx, wrapper, nil, callArgs, 0)
		done <- outcome{rv, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-opened:
		return nil, &driver.DialogOpenError{Dialog: *t.DialogNote()}
	}
	if o.err != nil {
		var ee *driver.EvalError
		if errors.As(o.err, &ee) {
			return nil, o.err
		}
		if isNoNode(o.err) {
			return nil, &driver.ElementError{Ref: firstRef(args), Err: driver.ErrRefStale}
		}
		if errors.Is(o.err, driver.ErrSessionClosed) || t.promptOpen() {
			return nil, t.wrap(o.err)
		}
		// The document went away under the function: it navigated.
		loc, lerr := t.Location(ctx)
		if lerr == nil && loc.URL != "" {
			return &driver.EvalResult{Navigated: true, URL: loc.URL}, nil
		}
		return nil, t.wrap(o.err)
	}
	var s string
	if o.rv.Type != "string" || json.Unmarshal(o.rv.Value, &s) != nil {
		return nil, errors.New("firefox: decoding the serialized value: not a string")
	}
	var out struct {
		JSON      *string `json:"json"`
		Truncated bool    `json:"truncated"`
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil || out.JSON == nil || !json.Valid([]byte(*out.JSON)) {
		return nil, errors.New("firefox: decoding the serialized value: not JSON")
	}
	return &driver.EvalResult{Value: json.RawMessage(*out.JSON), Truncated: out.Truncated}, nil
}

func str(s string) map[string]any { return map[string]any{"type": "string", "value": s} }

func firstRef(args []driver.EvalArg) string {
	for _, a := range args {
		if a.Ref != "" {
			return a.Ref
		}
	}
	return ""
}
