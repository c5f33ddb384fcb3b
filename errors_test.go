package cdpkit_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/cdpkit/cdpkit"
)

// TestErrorIs checks that errors.Is matches an *Error by its code, through
// wrapping, and nothing else.
func TestErrorIs(t *testing.T) {
	err := fmt.Errorf("step: %w", &cdpkit.Error{Code: "DIALOG_OPEN", Message: "a confirm dialog blocks the page"})
	if !errors.Is(err, cdpkit.ErrDialogOpen) {
		t.Errorf("errors.Is(%v, ErrDialogOpen) = false", err)
	}
	if errors.Is(err, cdpkit.ErrTimeout) || errors.Is(err, errors.New("DIALOG_OPEN")) {
		t.Errorf("errors.Is matched another code or a plain error")
	}
}

// TestErrorSentinels checks that errors.go has one sentinel for each code
// docs/errors.md lists, and no other.
func TestErrorSentinels(t *testing.T) {
	doc, err := os.ReadFile("docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)`").FindAllSubmatch(doc, -1) {
		want = append(want, string(m[1]))
	}
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Code" {
				if lit, ok := kv.Value.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					got = append(got, s)
				}
			}
		}
		return true
	})
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("sentinel codes in errors.go = %v\ndocs/errors.md lists %v", got, want)
	}
}
