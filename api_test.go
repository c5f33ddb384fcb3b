package cdpkit_test

import (
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update", false, "rewrite api/cdpkit.txt from the package's exported API")

// apiFile is the committed listing of the public API that TestAPI
// compares the package with, until a tagged version takes its place.
const apiFile = "api/cdpkit.txt"

// TestAPI fails when an exported name of package cdpkit was removed or
// its signature changed since api/cdpkit.txt was written (a break for
// programs that use it), or a new one is missing from the listing. After
// a deliberate change, regenerate the listing with
// `go test -run TestAPI -update .` and record the change in CHANGELOG.md.
func TestAPI(t *testing.T) {
	got := apiListing(t)
	if *updateAPI {
		if err := os.WriteFile(apiFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(apiFile)
	if err != nil {
		t.Fatalf("%v; write it with go test -run TestAPI -update .", err)
	}
	want := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var removed, added []string
	for _, l := range want {
		if !slices.Contains(got, l) {
			removed = append(removed, l)
		}
	}
	for _, l := range got {
		if !slices.Contains(want, l) {
			added = append(added, l)
		}
	}
	if len(removed) > 0 {
		t.Errorf("the API lost or changed these, which breaks programs that use them (keep them, or if the break is meant, note it in CHANGELOG.md and run go test -run TestAPI -update .):\n\t%s",
			strings.Join(removed, "\n\t"))
	}
	if len(added) > 0 {
		t.Errorf("%s lacks these new names (add them to CHANGELOG.md's Unreleased section and run go test -run TestAPI -update .):\n\t%s",
			apiFile, strings.Join(added, "\n\t"))
	}
}

// apiListing is one line per exported name of package cdpkit, with its
// type: constants, variables, functions, types, their exported methods
// and struct fields; sorted.
func apiListing(t *testing.T) []string {
	t.Helper()
	// The compiler's export data, which go list -export builds (from the
	// build cache, mostly).
	lookup := func(path string) (io.ReadCloser, error) {
		out, err := exec.Command("go", "list", "-export", "-f", "{{.Export}}", path).Output()
		if err != nil {
			return nil, fmt.Errorf("go list -export %s: %w", path, err)
		}
		return os.Open(strings.TrimSpace(string(out)))
	}
	pkg, err := importer.ForCompiler(token.NewFileSet(), "gc", lookup).Import("github.com/cdpkit/cdpkit")
	if err != nil {
		t.Fatalf("type-checking the package: %v", err)
	}
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Path()
	}
	var out []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			out = append(out, typeLines(obj, qual)...)
		case *types.Const:
			out = append(out, fmt.Sprintf("const %s %s", obj.Name(), types.TypeString(obj.Type(), qual)))
		default:
			out = append(out, types.ObjectString(obj, qual))
		}
	}
	sort.Strings(out)
	return out
}

// typeLines lists a type, its exported fields and its methods.
func typeLines(obj *types.TypeName, qual types.Qualifier) []string {
	name := obj.Name()
	under := obj.Type().Underlying()
	var out []string
	if s, ok := under.(*types.Struct); ok {
		out = append(out, "type "+name+" struct")
		for i := range s.NumFields() {
			if f := s.Field(i); f.Exported() {
				out = append(out, fmt.Sprintf("field %s.%s %s", name, f.Name(), types.TypeString(f.Type(), qual)))
			}
		}
	} else {
		out = append(out, "type "+name+" "+types.TypeString(under, qual))
	}
	// T's methods, then those only *T has.
	seen := map[string]bool{}
	for _, typ := range []types.Type{obj.Type(), types.NewPointer(obj.Type())} {
		ms := types.NewMethodSet(typ)
		for i := range ms.Len() {
			m := ms.At(i).Obj()
			if !m.Exported() || seen[m.Name()] {
				continue
			}
			seen[m.Name()] = true
			recv := name
			if _, ok := typ.(*types.Pointer); ok {
				recv = "*" + name
			}
			sig := strings.TrimPrefix(types.TypeString(m.Type(), qual), "func")
			out = append(out, fmt.Sprintf("method (%s) %s%s", recv, m.Name(), sig))
		}
	}
	return out
}

// TestAPIResultsAreTyped checks that no exported function or method
// returns a map: results are structs (or slices of them).
func TestAPIResultsAreTyped(t *testing.T) {
	for _, l := range apiListing(t) {
		if !strings.HasPrefix(l, "func ") && !strings.HasPrefix(l, "method ") {
			continue
		}
		// The results follow the parameters' closing parenthesis.
		if i := strings.LastIndex(l, ") "); i >= 0 && strings.Contains(l[i:], "map[") {
			t.Errorf("%s returns a map; return a struct", l)
		}
	}
}
