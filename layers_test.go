package cdpkit_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/cdpkit/cdpkit"

// isCDP reports whether an import path is the protocol layer: cdpkit's
// own CDP connection or the generated cdproto types.
func isCDP(path string) bool {
	return path == module+"/internal/cdp" || strings.HasPrefix(path, "github.com/chromedp/cdproto")
}

// isBackend reports whether an import path is a browser backend: Chromium
// over CDP (internal/browser) or Firefox over WebDriver BiDi.
func isBackend(path string) bool {
	return path == module+"/internal/browser" || path == module+"/internal/firefox"
}

// isProtocol reports whether an import path is a protocol layer: CDP,
// WebDriver BiDi or WebDriver classic.
func isProtocol(path string) bool {
	return isCDP(path) || path == module+"/internal/bidi" || path == module+"/internal/webdriver"
}

// layerRules say which packages may not import which: the tools layer
// and the front-ends know nothing of CDP, and the MCP server and CLI
// nothing of the browser (ARCHITECTURE.md, "The CDP layer knows nothing
// of MCP; the MCP layer knows nothing of CDP"); the tools and front-ends
// speak to internal/driver, never to a backend, and neither backend
// imports the other ("Two equal backends").
var layerRules = []struct {
	dir    string
	forbid func(path string) bool
	why    string
}{
	{".", isCDP, "the public API has no CDP types"},
	{"internal/tools", isCDP, "tools speak to internal/driver, never to CDP"},
	{"internal/tools", isBackend, "tools speak to internal/driver, never to a backend"},
	{"internal/mcpserver", isBackend, "the MCP server goes through the tools registry"},
	{"internal/cli", isBackend, "the CLI goes through the tools registry"},
	{"internal/driver", isBackend, "the backend-neutral contract knows no backend"},
	{"internal/driver", isProtocol, "the backend-neutral contract knows no protocol"},
	{"internal/browser", func(p string) bool { return p == module+"/internal/firefox" }, "no backend imports another"},
	{"internal/firefox", func(p string) bool { return p == module+"/internal/browser" }, "no backend imports another"},
	{"internal/mcpserver", isCDP, "the MCP layer knows nothing of CDP"},
	{"internal/cli", isCDP, "the CLI knows nothing of CDP"},
	{".", isRaw, "the CDP handles are for tests and measurement"},
	{"internal/tools", isRaw, "the CDP handles are for tests and measurement"},
	{"internal/mcpserver", isRaw, "the CDP handles are for tests and measurement"},
	{"internal/cli", isRaw, "the CDP handles are for tests and measurement"},
	{"internal/firefox", isCDP, "the Firefox backend speaks BiDi; the websocket it shares with CDP is internal/wsconn"},
	{"cmd/cdpkit", isRaw, "the CDP handles are for tests and measurement"},
	{"cmd/cdpkit", isBackend, "cmd/cdpkit parses its flags into cdpkit.Options; cdpkit.New alone translates them for a backend"},
}

func isRaw(path string) bool { return path == module+"/internal/browser/rawcdp" }

// imports returns the packages dir's non-test files import, for this
// platform's build.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return pkg.Imports
}

// TestLayers fails when an import that the architecture forbids comes
// back.
func TestLayers(t *testing.T) {
	for _, r := range layerRules {
		for _, p := range imports(t, r.dir) {
			if r.forbid(p) {
				t.Errorf("%s imports %s: %s", r.dir, p, r.why)
			}
		}
	}
}

// sealedExceptions are exported names of internal/browser allowed to
// carry a CDP type; none are. Tests and measurement programs reach the CDP
// handles through internal/browser/rawcdp instead.
var sealedExceptions = []string{}

// TestBrowserSealed fails when an exported function, method, field or
// variable of internal/browser (or of internal/driver, the contract above
// it) has a CDP type in its signature or type: the browser core hands no
// CDP handle upward.
func TestBrowserSealed(t *testing.T) {
	found := cdpInExported(t, "internal/browser")
	for _, name := range found {
		if !slices.Contains(sealedExceptions, name) {
			t.Errorf("internal/browser exports %s with a CDP type", name)
		}
	}
	for _, name := range cdpInExported(t, "internal/driver") {
		t.Errorf("internal/driver exports %s with a CDP type", name)
	}
	for _, name := range sealedExceptions {
		if !slices.Contains(found, name) {
			t.Errorf("%s is sealed now: remove it from sealedExceptions", name)
		}
	}
}

// cdpInExported lists the exported names of the package in dir whose type
// or signature mentions a CDP package.
func cdpInExported(t *testing.T, dir string) []string {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		cdpNames := map[string]bool{}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !isCDP(path) {
				continue
			}
			local := filepath.Base(path)
			if imp.Name != nil {
				local = imp.Name.Name
			}
			cdpNames[local] = true
		}
		if len(cdpNames) == 0 {
			continue
		}
		mentions := func(n ast.Node) bool {
			hit := false
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && cdpNames[id.Name] {
						hit = true
					}
				}
				return !hit
			})
			return hit
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverName(d.Recv.List[0].Type)
					if !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				if mentions(d.Type) {
					found = append(found, name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						st, ok := s.Type.(*ast.StructType)
						if !ok {
							if mentions(s.Type) {
								found = append(found, s.Name.Name)
							}
							continue
						}
						for _, f := range st.Fields.List {
							for _, n := range f.Names {
								if n.IsExported() && mentions(f.Type) {
									found = append(found, s.Name.Name+"."+n.Name)
								}
							}
							if len(f.Names) == 0 && mentions(f.Type) { // embedded
								found = append(found, s.Name.Name+".(embedded)")
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Type != nil && mentions(s.Type) {
								found = append(found, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(found)
	return found
}

func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return receiverName(x.X)
	}
	return ""
}

// TestLibraryIsLight fails when a package the library (the module root)
// depends on, directly or not, pulls in the OpenTelemetry SDK, an
// exporter, protobuf or gRPC: those are the binary's (package
// internal/telemetry/export), so that a Go program importing cdpkit does
// not pay for them (issue #38).
func TestLibraryIsLight(t *testing.T) {
	t.Parallel()
	heavy := []string{"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters", "google.golang.org/protobuf", "google.golang.org/grpc"}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range deps {
		for _, h := range heavy {
			if strings.HasPrefix(p, h) {
				t.Errorf("the library depends on %s", p)
			}
		}
	}
	t.Logf("go list -deps . lists %d packages", len(deps))
}
