package cli

// A tool's --argName value flags, converted to the types its schema
// gives, and @ref words.

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cdpkit/cdpkit/internal/tools"
)

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
