package cli

import (
	"regexp"
	"slices"
	"strings"

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
	// variadic: the last positional argument is a list and takes every
	// word left (select e4 red blue).
	variadic bool
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
			if n := len(r.positional); n > 0 {
				last := strings.TrimSuffix(r.positional[n-1], "?")
				r.variadic = schemaType(t.InputSchema.Properties[last]) == "array"
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

// groupVerbs returns the second words of the two-word verbs whose first
// word is name ("record" → start, stop).
func groupVerbs(name string, all []tools.Tool) []string {
	var out []string
	for _, v := range verbs(all) {
		if first, second, ok := strings.Cut(v.name, " "); ok && first == name {
			out = append(out, second)
		}
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
	if c.namesElement() {
		// --selector, --text or --role/--name name the element instead of
		// a ref: the words fill the arguments after the ref (fill
		// --selector '#name' ada).
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
		if c.variadic(name) {
			// The last argument, a list, takes the words left (select
			// e4 red blue).
			items := make([]any, 0, len(words)-i)
			for _, w := range words[i:] {
				items = append(items, w)
			}
			c.args[name] = items
			return nil
		}
		if localSave(c.verb.name, name) {
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
	if c.savePath != "" && c.verb.name == "record stop" && !strings.EqualFold(extOf(c.savePath), ".mp4") {
		return usagef("record stop saves an MP4: give a path ending in .mp4, not %q", c.savePath)
	}
	if c.savePath != "" && c.verb.name == "screenshot" {
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

// elementFlags are the arguments that name an element instead of a ref.
var elementFlags = []string{"selector", "byText", "role", "name"}

// namesElement reports whether the command line named the element by a
// flag rather than a ref word. A verb whose own words fill one of these
// (type <text>) keeps them.
func (c *command) namesElement() bool {
	if !slices.ContainsFunc(c.verb.positional, func(p string) bool { return strings.TrimSuffix(p, "?") == "uid" }) {
		return false
	}
	for _, f := range elementFlags {
		if _, given := c.args[f]; given && c.tool.InputSchema.Properties[f] != nil {
			return true
		}
	}
	return false
}

// variadic reports whether name is the verb's last argument and a list,
// which takes every word left.
func (c *command) variadic(name string) bool {
	return c.verb.variadic && name == strings.TrimSuffix(c.verb.positional[len(c.verb.positional)-1], "?")
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
	for i, p := range v.positional {
		name, optional := strings.CutSuffix(p, "?")
		if n, ok := v.shownAs[name]; ok {
			name = n
		}
		if optional {
			s += " [" + name + "]"
		} else {
			s += " <" + name + ">"
		}
		if v.variadic && i == len(v.positional)-1 {
			s += "..."
		}
	}
	if v.name == "snapshot" {
		s += " [-i]"
	}
	return s
}
