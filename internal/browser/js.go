package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpkit/cdpkit/internal/pagejs"
)

// The JavaScript cdpkit runs in pages lives in internal/pagejs, one
// function expression a file, and runs here only through callJS.

// pageScript is a function expression from js/.
type pageScript struct {
	name string
	src  string // an expression that evaluates to the function
}

// loadScript reads js/name.js. Each of libs, another file of js/, is bound
// ahead of it to a const named after the file in camel case (scroll_report
// becomes scrollReport). A missing file is a build mistake, so it panics
// when the package loads.
func loadScript(name string, libs ...string) pageScript {
	p := pageScript{name: name, src: readScript(name)}
	if len(libs) == 0 {
		return p
	}
	var decls strings.Builder
	for _, lib := range libs {
		fmt.Fprintf(&decls, "const %s = %s;\n", camel(lib), readScript(lib))
	}
	return p.withPrelude(decls.String())
}

func readScript(name string) string {
	b, err := pagejs.Files.ReadFile("js/" + name + ".js")
	if err != nil {
		panic("browser: no page script " + name + ": " + err.Error())
	}
	return strings.TrimSpace(string(b))
}

// withPrelude returns the script with declarations (statements) run
// ahead of it, in a scope the function closes over.
func (p pageScript) withPrelude(decls string) pageScript {
	p.src = "(() => {\n" + decls + "\nreturn (" + p.src + ");\n})()"
	return p
}

func camel(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// jsCall says where callJS runs a script: on an object, as this; else in
// an execution context (an isolated world); else in the main world of the
// session's page.
type jsCall struct {
	this    runtime.RemoteObjectID
	context runtime.ExecutionContextID
	// gesture runs the script as a user action, which focus, selection
	// and opening popups need.
	gesture bool
	// group is the object group of the handles the call makes, such as
	// of an exception it throws.
	group string
}

// ScriptError is a page script that threw.
type scriptError struct {
	script string
	text   string // the exception's first line
}

func (e *scriptError) Error() string {
	return "browser: page script " + e.script + " threw " + e.text
}

// handleKey marks, in the arguments array, a slot filled by a CDP handle.
const handleKey = "cdpkitHandle"

// unhandle maps an argument slot to the handle it marks, in scope of an
// array named handles.
const unhandle = "a => a !== null && typeof a === 'object' && '" + handleKey + "' in a ? handles[a." + handleKey + "] : a"

// callJS runs script with args and decodes its JSON result into out,
// unless out is nil; a promise is awaited. An argument is a plain Go value
// (sent as JSON; a NaN or infinite float64 as itself) or a
// *runtime.CallArgument such as an object handle, which needs on.this or
// on.context. A script that throws is a *scriptError; a failed command is
// returned as the session returns it. The context bounds the call.
func callJS(ctx context.Context, s cdpapi.Session, on jsCall, script pageScript, out any, args ...any) error {
	vals := make([]any, 0, len(args))
	var handles []*runtime.CallArgument
	for _, a := range args {
		switch a := a.(type) {
		case *runtime.CallArgument:
			if a.ObjectID == "" && a.UnserializableValue == "" && len(a.Value) > 0 {
				vals = append(vals, json.RawMessage(a.Value))
				continue
			}
			vals = append(vals, map[string]int{handleKey: len(handles)})
			handles = append(handles, a)
		case float64:
			if math.IsNaN(a) || math.IsInf(a, 0) {
				vals = append(vals, map[string]int{handleKey: len(handles)})
				handles = append(handles, &runtime.CallArgument{UnserializableValue: unserializable(a)})
				continue
			}
			vals = append(vals, a)
		default:
			vals = append(vals, a)
		}
	}
	argv, err := json.Marshal(vals)
	if err != nil {
		return fmt.Errorf("browser: encoding the arguments of %s: %w", script.name, err)
	}
	yes := true
	var res *runtime.CallFunctionOnResult
	switch {
	case on.this == "" && on.context == 0:
		// Unserializable numbers are literals; an object handle needs
		// Runtime.callFunctionOn.
		lits := make([]string, len(handles))
		for i, h := range handles {
			if h.ObjectID != "" || h.UnserializableValue == "" {
				return fmt.Errorf("browser: page script %s: a handle needs an object or a context to run in", script.name)
			}
			lits[i] = string(h.UnserializableValue)
		}
		args := string(argv)
		if len(handles) > 0 {
			args = "((args, handles) => args.map(" + unhandle + "))(" + args + ", [" + strings.Join(lits, ", ") + "])"
		}
		r, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
			Expression:    "(" + script.src + ").apply(globalThis, " + args + ")",
			ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes, UserGesture: &on.gesture,
			ObjectGroup: on.group,
		})
		if err != nil {
			return err
		}
		res = &runtime.CallFunctionOnResult{Result: r.Result, ExceptionDetails: r.ExceptionDetails}
	default:
		// The arguments go as one array: cdproto omits an argument whose
		// value is "" or [], which the function would see as undefined.
		fn := "function(args) { return (" + script.src + ").apply(this, args) }"
		if len(handles) > 0 {
			fn = "function(args, ...handles) { return (" + script.src + ").apply(this, args.map(" + unhandle + ")) }"
		}
		r, err := cdpapi.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn,
			ObjectID:            on.this,
			ExecutionContextID:  on.context,
			Arguments:           append([]*runtime.CallArgument{{Value: argv}}, handles...),
			ReturnByValue:       &yes, AwaitPromise: &yes, Silent: &yes, UserGesture: &on.gesture,
			ObjectGroup: on.group,
		})
		if err != nil {
			return err
		}
		res = &r
	}
	if res.ExceptionDetails != nil {
		return &scriptError{script: script.name, text: exceptionText(res.ExceptionDetails)}
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		return fmt.Errorf("browser: decoding what %s returned: %w", script.name, err)
	}
	return nil
}

// unserializable spells a float64 JSON cannot carry as JavaScript does.
func unserializable(f float64) runtime.UnserializableValue {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return "NaN"
}
