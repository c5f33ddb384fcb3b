package cli

// Reading a command line: global and daemon flags anywhere, then the
// command, its positional words and --argName value pairs.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/tools"
)

// globals are the flags every call accepts.
type globals struct {
	session  string
	json     bool
	timeout  time.Duration
	help     bool
	daemon   []string // flags for a daemon this call starts
	setFlags []string // names given, for "only when starting" notes
	notes    []string // said on stderr before the call, such as a deprecated spelling
	lease    string   // --lease: the token of the tab the call acts on
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
	// group is the first word of a two-word verb ("record") until the
	// second arrives; verbWords counts the extra words a verb took.
	group     string
	verbWords int
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
			if c.name == "" || c.group != "" {
				name := a
				if c.group != "" { // the second word of a two-word verb
					name, c.group = c.group+" "+a, ""
					c.verbWords++
				}
				if err := c.setCommand(name, all); err != nil {
					return nil, err
				}
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "text" && c.tool != nil && c.tool.InputSchema.Properties["text"] == nil && c.tool.InputSchema.Properties["byText"] != nil {
			// The element's visible text: byText in the schema, text
			// still accepted by the tool (click --text "Sign in").
			name = "byText"
		}
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
		case "lease":
			v, err := next()
			if err != nil {
				return nil, err
			}
			c.lease = v
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
	if c.group != "" && c.help { // record --help
		c.name, c.words = "help", []string{c.group}
		return c, nil
	}
	if c.group != "" {
		return nil, usagef("%s needs one of: %s", c.group, strings.Join(groupVerbs(c.group, all), ", "))
	}
	words = words[1+c.verbWords:] // the command itself
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
	if c.lease != "" {
		// The door of every tab tool reads it (release_page has its own).
		c.args["lease"] = c.lease
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
	case "h", "help", "session", "json", "params", "timeout", "timeout_ms", "lease":
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
	if len(groupVerbs(name, all)) > 0 {
		c.group = name // a two-word verb's first word
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
