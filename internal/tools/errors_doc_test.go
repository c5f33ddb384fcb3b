package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// declaredCodes returns the Code constants errors.go declares.
func declaredCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Type == nil || len(vs.Values) != 1 {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
			s, _ := strconv.Unquote(lit.Value)
			codes = append(codes, s)
		}
		return true
	})
	return codes
}

// TestREADMEErrorTable checks that the error table in docs/errors.md
// (linked from the README) documents
// every code, with whether it is recoverable, and only real codes; and
// that the codes the issue named exist.
func TestREADMEErrorTable(t *testing.T) {
	codes := declaredCodes(t)
	for _, want := range []string{"INVALID_ARGS", "INVALID_URL", "URL_BLOCKED", "NAVIGATION_FAILED", "TIMEOUT",
		"TARGET_NOT_FOUND", "TARGET_CLOSED", "TARGET_CRASHED", "BROWSER_CRASHED", "NO_BROWSER", "ELEMENT_NOT_FOUND",
		"REF_STALE", "REF_NOT_FOUND", "ELEMENT_HIDDEN", "ELEMENT_NOT_CLICKABLE", "ELEMENT_NOT_TYPEABLE",
		"KEY_NOT_SUPPORTED", "DIALOG_OPEN", "EVAL_DISABLED", "EVAL_ERROR", "BUSY_QUEUE_FULL",
		"SCREENSHOT_TOO_LARGE", "UNSAFE_PATH", "SESSION_CLOSED"} {
		if !slices.Contains(codes, want) {
			t.Errorf("errors.go does not declare %s", want)
		}
	}
	readme, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	// | `CODE` | yes… or no… | meaning |
	row := regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| (yes|no)\\b[^|]*\\| [^|]+")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		documented[m[1]] = true
		if !slices.Contains(codes, m[1]) {
			t.Errorf("docs/errors.md documents %s, which errors.go does not declare", m[1])
		}
	}
	for _, c := range codes {
		if !documented[c] {
			t.Errorf("docs/errors.md's error table lacks a row | `%s` | yes or no | meaning |", c)
		}
	}
}
