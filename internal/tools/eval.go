package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

type evalArgs struct {
	Function string `json:"function" jsonschema:"JavaScript function, such as async (el) => el.innerText, or expression, such as document.title; returns the awaited value"`
	Args     []any  `json:"args,omitempty" jsonschema:"arguments: {\"uid\":\"e12\"} or \"e12\" passes that element; other JSON values pass as they are"`
	SavePath string `json:"savePath,omitempty" jsonschema:"write the value as JSON to this file in the artifact dir and return only its path and size"`
	Target   string `json:"target,omitempty"`

	IncludeSnapshot bool `json:"includeSnapshot,omitempty" jsonschema:"full snapshot, not changes"`

	args []driver.EvalArg // by check
}

func evalTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "evaluate_script",
			Description: "Run a JavaScript function in the page and return its value as JSON (DOM nodes, Map, Set, Date, " +
				"undefined, NaN… shown readably; ~25k chars max, or savePath). Off unless cdpkit runs with --allow-eval.",
			// A page in mid-navigation may not answer yet; the value
			// matters more than the changes.
			Changes: TryChanges,
			Verbs:   []Verb{{Name: "eval", Args: []string{"function:js"}, Summary: "run JavaScript in the page (daemon needs --allow-eval)", Rank: 8}},
		}, evaluateScript),
	}
}

type evalData struct {
	Value     json.RawMessage `json:"value,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
	Navigated bool            `json:"navigated,omitempty"`
	URL       string          `json:"url,omitempty"`
	Note      string          `json:"note,omitempty"`
	Path      string          `json:"path,omitempty"`
	Bytes     int             `json:"bytes,omitempty"`
	changedIfAny
}

// refArg matches an argument that names an element by ref.
var refArg = regexp.MustCompile(`^@?e[0-9]+$`)

// check refuses the call before any browser work, even starting one, when
// evaluation is off.
func (in *evalArgs) check(_ context.Context, env *Env) error {
	if !env.AllowEval {
		return errorf(EvalDisabled, false, "restart cdpkit with --allow-eval (or CDPKIT_ALLOW_EVAL=1) to allow it",
			"evaluate_script is disabled: running the agent's JavaScript in pages is off unless cdpkit is started with --allow-eval")
	}
	if strings.TrimSpace(in.Function) == "" {
		return errorf(InvalidArgs, false, "give a function such as () => document.title", "function is empty")
	}
	var err error
	if in.args, err = evalArgList(in.Args); err != nil {
		return err
	}
	if in.SavePath != "" {
		return env.Artifacts.Check(in.SavePath) // before the work whose result it would hold
	}
	return nil
}

func evaluateScript(ctx context.Context, env *Env, d *door, in evalArgs) (*Result, error) {
	lim := driver.EvalInline
	if in.SavePath != "" {
		lim = driver.EvalFile
	}
	res, err := d.tab.Evaluate(ctx, in.Function, in.args, lim)
	if err != nil {
		return nil, err
	}
	data := &evalData{Truncated: res.Truncated, Navigated: res.Navigated, URL: res.URL}
	switch {
	case res.Navigated:
		data.Note = "the page navigated before the function returned, so there is no value"
	case in.SavePath != "":
		var buf bytes.Buffer
		if err := json.Indent(&buf, res.Value, "", "  "); err != nil {
			buf.Reset()
			buf.Write(res.Value)
		}
		buf.WriteByte('\n')
		if data.Path, err = env.Artifacts.WriteFile(in.SavePath, buf.Bytes()); err != nil {
			return nil, err
		}
		data.Bytes = buf.Len()
	default:
		data.Value = json.RawMessage(res.Value)
	}
	return &Result{Data: data}, nil
}

// evalArgList turns the tool's arguments into the browser's: refs to
// elements, the rest JSON values.
func evalArgList(in []any) ([]driver.EvalArg, error) {
	out := make([]driver.EvalArg, 0, len(in))
	for i, a := range in {
		switch v := a.(type) {
		case string:
			if refArg.MatchString(v) {
				out = append(out, driver.EvalArg{Ref: v})
				continue
			}
		case map[string]any:
			if uid, ok := v["uid"]; ok && len(v) == 1 {
				ref, ok := uid.(string)
				if !ok || !refArg.MatchString(ref) {
					return nil, errorf(InvalidArgs, false, "a uid is a snapshot ref such as e12", "args[%d].uid is not a ref", i)
				}
				out = append(out, driver.EvalArg{Ref: ref})
				continue
			}
		}
		raw, err := json.Marshal(a)
		if err != nil {
			return nil, errorf(InvalidArgs, false, "pass JSON values", "args[%d]: %v", i, err)
		}
		out = append(out, driver.EvalArg{Value: raw})
	}
	return out, nil
}
