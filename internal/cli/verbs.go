package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// A verb is a short command for a common tool call, as its tool declares
// it (tools.Verb).
type verb struct {
	name, tool string
	// positional names the tool arguments the words after the verb fill,
	// in order; a trailing "?" marks one optional.
	positional []string
	shownAs    map[string]string // how usage lines name positional arguments
	fixed      map[string]any    // arguments always sent
	summary    string
}

// verbs are the short commands the tools declare, in the order help
// lists them.
func verbs(all []tools.Tool) []verb {
	type ranked struct {
		verb
		rank int
	}
	var rs []ranked
	for _, t := range all {
		for _, v := range t.Verbs {
			r := ranked{verb: verb{name: v.Name, tool: t.Name, fixed: v.Fixed, summary: v.Summary}, rank: v.Rank}
			for _, a := range v.Args {
				name, shown, ok := strings.Cut(a, ":")
				if ok {
					opt := strings.HasSuffix(shown, "?")
					shown = strings.TrimSuffix(shown, "?")
					if opt {
						name += "?"
					}
					if r.shownAs == nil {
						r.shownAs = map[string]string{}
					}
					r.shownAs[strings.TrimSuffix(name, "?")] = shown
				}
				r.positional = append(r.positional, name)
			}
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return a.rank - b.rank })
	out := make([]verb, len(rs))
	for i, r := range rs {
		out[i] = r.verb
	}
	return out
}

func findVerb(name string, all []tools.Tool) *verb {
	vs := verbs(all)
	i := slices.IndexFunc(vs, func(v verb) bool { return v.name == name })
	if i < 0 {
		return nil
	}
	return &vs[i]
}

// globals are the flags every call accepts.
type globals struct {
	session  string
	json     bool
	timeout  time.Duration
	help     bool
	daemon   []string // flags for a daemon this call starts
	setFlags []string // names given, for "only when starting" notes
	notes    []string // said on stderr before the call, such as a deprecated spelling
}

// command is one parsed command line.
type command struct {
	globals
	name string // verb, tool name, "close", "sessions" or "help"
	tool *tools.Tool
	verb *verb
	args map[string]any // tool arguments
	// savePath is screenshot's path: the CLI copies the capture there.
	savePath string
	words    []string // positional words of help
}

// usageError is a bad command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// DaemonFlag says whether name is a flag of `cdpkit daemon` and whether
// it takes a value.
type DaemonFlag func(name string) (known, takesValue bool)

// parse reads a command line: global and daemon flags anywhere (before the
// command, or after it unless the tool has an argument of that name), then
// the command, its positional words, and --argName value pairs.
func parse(args []string, all []tools.Tool, daemonFlag DaemonFlag, env func(string) string) (*command, error) {
	c := &command{args: map[string]any{}}
	c.session = env("CDPKIT_SESSION")
	if c.session == "" {
		c.session = DefaultSession
	}
	var words []string
	var rawJSON string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" || isNegativeNumber(a) {
			words = append(words, a)
			if c.name == "" {
				if err := c.setCommand(a, all); err != nil {
					return nil, err
				}
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", usagef("flag --%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		// A tool called by name keeps its own arguments even where a
		// global flag has the same name (navigate_page --timeout 5000); a
		// verb's global flags win (open URL --timeout 10s).
		if c.tool != nil && c.tool.InputSchema.Properties[name] != nil && (c.verb == nil || !isGlobal(name)) {
			v, err := toolFlag(c.tool, name, value, hasValue, next)
			if err != nil {
				return nil, err
			}
			// Repeating an array flag adds items: --values a --values b.
			if prev, ok := c.args[name].([]any); ok {
				if items, ok := v.([]any); ok {
					v = append(prev, items...)
				}
			}
			c.args[name] = v
			continue
		}
		switch name {
		case "h", "help":
			c.help = true
			continue
		case "i":
			if c.verb != nil && c.verb.name == "snapshot" {
				c.args["interactive"] = true
				continue
			}
		case "session":
			v, err := next()
			if err != nil {
				return nil, err
			}
			c.session = v
			continue
		case "params":
			v, err := next()
			if err != nil {
				return nil, err
			}
			if !strings.HasPrefix(strings.TrimSpace(v), "{") {
				return nil, usagef("--params %s: want a JSON object of the tool's arguments", v)
			}
			rawJSON = v
			continue
		case "json":
			// Bare --json asks for JSON output. --json '{…}', the tool's
			// arguments, is the old spelling of --params.
			if hasValue || (i+1 < len(args) && strings.HasPrefix(strings.TrimSpace(args[i+1]), "{")) {
				v, _ := next()
				if !strings.HasPrefix(strings.TrimSpace(v), "{") {
					return nil, usagef("--json=%s: want bare --json for JSON output, or --params '{…}' for the tool's arguments", v)
				}
				rawJSON = v
				c.notes = append(c.notes, "--json '{…}' for a tool's arguments is deprecated; use --params '{…}' (bare --json still asks for JSON output)")
				continue
			}
			c.json = true
			continue
		case "timeout_ms":
			// Every tool takes it, though no schema lists it.
			v, err := next()
			if err != nil {
				return nil, err
			}
			ms, err := strconv.Atoi(v)
			if err != nil || ms <= 0 || c.tool == nil {
				return nil, usagef("--timeout_ms %q: want a positive number of milliseconds after a command", v)
			}
			c.args["timeout_ms"] = ms
			continue
		case "timeout":
			v, err := next()
			if err != nil {
				return nil, err
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, usagef("--timeout %q: want a duration such as 30s", v)
			}
			c.timeout = d
			continue
		}
		if known, takesValue := daemonFlag(name); known {
			f := "--" + name
			if takesValue {
				v, err := next()
				if err != nil {
					return nil, err
				}
				f += "=" + v
			} else if hasValue {
				f += "=" + value
			}
			c.daemon = append(c.daemon, f)
			c.setFlags = append(c.setFlags, name)
			continue
		}
		if c.tool != nil {
			return nil, usagef("%s has no argument --%s; its arguments: %s", c.name, name, argNames(c.tool))
		}
		return nil, usagef("unknown flag --%s", name)
	}
	if err := CheckSession(c.session); err != nil {
		return nil, usagef("%v", err)
	}
	if c.name == "" {
		if c.help {
			c.name = "help"
			return c, nil
		}
		return nil, usagef("no command")
	}
	words = words[1:] // the command itself
	if c.name == "help" {
		c.words = words
		return c, nil
	}
	if c.help {
		return c, nil
	}
	if c.tool == nil { // close, sessions
		if len(words) > 0 {
			return nil, usagef("%s takes no arguments", c.name)
		}
		return c, nil
	}
	if rawJSON != "" {
		var m map[string]any
		if err := json.Unmarshal([]byte(rawJSON), &m); err != nil {
			return nil, usagef("--json: %v", err)
		}
		for k, v := range m {
			if _, set := c.args[k]; !set {
				c.args[k] = v
			}
		}
	}
	if err := c.fillPositional(words); err != nil {
		return nil, err
	}
	normalizeRefs(c.args)
	if c.tool.Name == "upload_file" {
		absUploads(c.args)
	}
	return c, nil
}

// absUploads resolves upload_file's relative paths against this call's
// working directory: the daemon's is the one of the call that started it.
func absUploads(args map[string]any) {
	abs := func(v any) any {
		if s, ok := v.(string); ok && s != "" && !filepath.IsAbs(s) {
			if a, err := filepath.Abs(s); err == nil {
				return a
			}
		}
		return v
	}
	if v, ok := args["filePath"]; ok {
		args["filePath"] = abs(v)
	}
	if ps, ok := args["paths"].([]any); ok {
		for i := range ps {
			ps[i] = abs(ps[i])
		}
	}
}

func isGlobal(name string) bool {
	switch name {
	case "h", "help", "session", "json", "params", "timeout", "timeout_ms":
		return true
	}
	return false
}

func (c *command) setCommand(name string, all []tools.Tool) error {
	c.name = name
	switch name {
	case "help", "close", "sessions":
		return nil
	}
	tool := name
	if v := findVerb(name, all); v != nil {
		c.verb = v
		tool = v.tool
	}
	i := slices.IndexFunc(all, func(t tools.Tool) bool { return t.Name == tool })
	if i < 0 {
		return usagef("unknown command %q (run 'cdpkit help')", name)
	}
	c.tool = &all[i]
	return nil
}

// fillPositional puts a verb's words into its arguments; a tool called by
// name takes none.
func (c *command) fillPositional(words []string) error {
	if c.verb == nil {
		if len(words) > 0 {
			return usagef("%s takes --argName value flags, not %q (run 'cdpkit %s --help')", c.name, words[0], c.name)
		}
		return nil
	}
	for k, v := range c.verb.fixed {
		c.args[k] = v
	}
	positional := c.verb.positional
	if _, bySelector := c.args["selector"]; bySelector {
		// --selector names the element instead of a ref: the words fill
		// the arguments after the ref (fill --selector '#name' ada).
		positional = slices.DeleteFunc(slices.Clone(positional), func(p string) bool { return strings.TrimSuffix(p, "?") == "uid" })
	}
	for i, p := range positional {
		name, optional := strings.CutSuffix(p, "?")
		if i >= len(words) {
			if _, given := c.args[name]; optional || given {
				break
			}
			return usagef("usage: cdpkit %s", verbUsage(c.verb))
		}
		if c.verb.name == "screenshot" && name == "path" {
			c.savePath = words[i]
			continue
		}
		if c.verb.name == "eval" {
			c.args[name] = asFunction(words[i])
			continue
		}
		c.args[name] = words[i]
	}
	if len(words) > len(positional) {
		return usagef("unexpected argument %q; usage: cdpkit %s", words[len(positional)], verbUsage(c.verb))
	}
	if c.savePath != "" {
		if _, set := c.args["format"]; !set {
			switch strings.ToLower(strings.TrimPrefix(extOf(c.savePath), ".")) {
			case "jpg", "jpeg":
				c.args["format"] = "jpeg"
			case "webp":
				c.args["format"] = "webp"
			}
		}
	}
	return nil
}

func extOf(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 && !strings.ContainsRune(p[i:], '/') {
		return p[i:]
	}
	return ""
}

var functionLike = regexp.MustCompile(`^\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)`)

// asFunction makes `eval document.title` work: an expression that is not
// already a function becomes one returning it.
func asFunction(js string) string {
	if functionLike.MatchString(js) {
		return js
	}
	return "() => (" + js + "\n)"
}

func verbUsage(v *verb) string {
	s := v.name
	for _, p := range v.positional {
		name, optional := strings.CutSuffix(p, "?")
		if n, ok := v.shownAs[name]; ok {
			name = n
		}
		if optional {
			s += " [" + name + "]"
		} else {
			s += " <" + name + ">"
		}
	}
	if v.name == "snapshot" {
		s += " [-i]"
	}
	return s
}

func isNegativeNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// refArg matches a ref written with agent-browser's @ prefix.
var refArg = regexp.MustCompile(`^@([A-Za-z0-9_]+)$`)

// normalizeRefs turns @e12 into e12 in the arguments that take refs.
func normalizeRefs(args map[string]any) {
	for k, v := range args {
		s, ok := v.(string)
		if !ok || !(k == "uid" || strings.HasSuffix(k, "_uid") || k == "scope") {
			continue
		}
		if m := refArg.FindStringSubmatch(s); m != nil {
			args[k] = m[1]
		}
	}
}

// toolFlag converts one --name value flag to the type the tool's schema
// gives the argument.
func toolFlag(t *tools.Tool, name, value string, hasValue bool, next func() (string, error)) (any, error) {
	s := t.InputSchema.Properties[name]
	typ := schemaType(s)
	if typ == "boolean" {
		if !hasValue {
			return true, nil
		}
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, usagef("--%s=%s: want true or false", name, value)
		}
		return b, nil
	}
	v, err := next()
	if err != nil {
		return nil, err
	}
	return convert(name, typ, s, v)
}

// convert turns a flag's text into a JSON value of the schema's type.
func convert(name, typ string, s *jsonschema.Schema, v string) (any, error) {
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, usagef("--%s %q: want an integer", name, v)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, usagef("--%s %q: want a number", name, v)
		}
		return f, nil
	case "array":
		if strings.HasPrefix(strings.TrimSpace(v), "[") {
			var a []any
			if err := json.Unmarshal([]byte(v), &a); err != nil {
				return nil, usagef("--%s: %v", name, err)
			}
			return a, nil
		}
		// A single item: one string, or one JSON value of the item type.
		if s.Items != nil && schemaType(s.Items) != "string" {
			var item any
			if err := json.Unmarshal([]byte(v), &item); err != nil {
				return nil, usagef("--%s %q: want a JSON array", name, v)
			}
			return []any{item}, nil
		}
		return []any{v}, nil
	case "object":
		var m map[string]any
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			return nil, usagef("--%s: want a JSON object: %v", name, err)
		}
		return m, nil
	}
	return v, nil
}

// schemaType is the schema's JSON type, ignoring "null".
func schemaType(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

func argNames(t *tools.Tool) string {
	var names []string
	for n := range t.InputSchema.Properties {
		names = append(names, "--"+n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}
