package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// driverMethodNeeds maps each method of the backend contract a tool may
// reach, by name or as Type.Method, to the capability a backend offers it
// under (see toolNeeds); "" is the base contract, which every backend
// implements. It is the one thing to edit when the contract changes: a
// method of the contract that a tool reaches and this table does not name
// fails TestToolNeedsMatchHandlers.
var driverMethodNeeds = map[string]Capability{
	// The browser.
	"PagesIn": CapTabs, "PagesNow": CapTabs, "TabIn": CapTabs, "NewTab": CapTabs, "CloseScope": CapTabs,
	"Workers":         CapTabs,                  // list_pages all:true, where a backend can (it says when not)
	"TakeRefusedTabs": "",                       // where a backend enforces a scope's tab limit on pages
	"DownloadMark":    "", "DownloadsSince": "", // every backend answers, with none if it cannot
	"Backend": CapLeases, "Identity": CapLeases,
	// Browser-level roles (internal/driver's roles.go).
	"DownloadLog.Downloads": CapDownloads, "MockLister.Mocks": CapNetworkMock, "MockLister.ClearMocks": CapNetworkMock,
	"Auditor.StartAuditBrowser": CapAuditLighthouse, "AuditBrowser.Port": CapAuditLighthouse,
	"Backend.Name": "", // names the backend in an Unsupported error (tools.role)

	// The tab: who it is, where, and its queue and health (the door's).
	"ID": "", "Scope": "", "LastURL": "", "Settle": "",
	"Acquire": "", "AwaitNavigation": "", "CheckCrashed": "", "CheckDialog": "", "SetDialogPolicy": "",
	"BlockNote": "", "DialogNote": "", "FileChooser": "",
	"MakeActive": CapTabs, "Close": CapTabs, "Location": CapTabs, "DocumentState": CapTabs,
	"Navigate": CapNavigate, "NavigateWith": CapNavigate, "GoBack": CapNavigate, "GoForward": CapNavigate, "Reload": CapNavigate,
	"Snapshot": CapSnapshot, "SnapshotDiff": CapSnapshot,
	"Text":  CapText,
	"Click": CapInput, "Hover": CapInput, "TypeText": CapInput, "PressKey": CapInput,
	"ClickAt": CapInputPoint, "MoveMouseTo": CapInputPoint, "DragAt": CapInputPoint, "ScrollAt": CapInputPoint,
	"SetImageScale": "", "ImageScale": "", // the screenshot scale the tab keeps for coordinates
	"Drag":   CapInputDrag,
	"Scroll": CapInputScroll,
	"Fill":   CapFormsFill, "SelectOptions": CapFormsSelect, "SetFiles": CapFormsUpload,
	"Screenshot": CapScreenshot, "PrintPDF": CapPDF,
	"StartScreencast": CapCaptureScreencast, "ScreencastStream.Stop": CapCaptureScreencast,
	"ScreencastStream.Done": CapCaptureScreencast, "ScreencastStream.Err": CapCaptureScreencast,
	"NetworkRequests": CapNetworkLog, "NetworkRequest": CapNetworkLog, "RequestPostData": CapNetworkLog, "ResponseBody": CapNetworkLog,
	"AddMock": CapNetworkMock,
	"Cookies": CapCookies, "SetCookie": CapCookies, "DeleteCookies": CapCookies,
	"SaveStorageState": CapStorageState, "LoadStorageState": CapStorageState,
	"HandleDialog":    CapDialogs,
	"ConsoleMessages": CapConsole, "ConsoleMessage": CapConsole, "SetConsolePreserve": CapConsole,
	"Evaluate":    CapEvaluate,
	"SetViewport": CapEmulateViewport, "Emulate": CapEmulate,
	"WaitFor":      CapWait,
	"HeapSnapshot": CapHeapSnapshot,
	"StartTrace":   CapTracePerformance, "StopTrace": CapTracePerformance,
}

// needsBeyondHandler are tools whose declared needs are left as they are
// though their handlers do not reach them, and why.
var needsBeyondHandler = map[string]string{
	// It reads a trace file and calls no backend; offering it where no
	// trace can be recorded would be a change of its own.
	"performance_analyze_insight": "analyses the traces the tracing tools save, and is offered with them",
}

// isDriverPkg reports whether path is a package of the backend contract.
func isDriverPkg(path string) bool {
	return strings.HasSuffix(path, "/internal/browser") || strings.HasSuffix(path, "/internal/driver")
}

// TestToolNeedsMatchHandlers fails when a tool's declared needs (toolNeeds)
// and what its handler does disagree. It type-checks this package, follows
// each tool's handler through the package's own functions and methods,
// and maps each method of the backend contract it reaches to a capability
// (driverMethodNeeds). A handler may use what the tool declares, and what
// the door itself uses for every tool (a backend without it runs no tool);
// each declared need must be used by the handler. The door's own uses must
// be offered by every backend.
func TestToolNeedsMatchHandlers(t *testing.T) {
	t.Parallel()
	r := loadReach(t)
	decls := r.toolHandlers(t)

	door := r.reached(r.method("Tool", "through"))
	doorCaps := map[Capability]string{}
	for m := range door {
		if c := r.need(t, m, "the door"); c != "" {
			doorCaps[c] = m
		}
	}
	t.Logf("the door's needs, which every tool has: %v", slices.Sorted(maps.Keys(doorCaps)))
	for _, backend := range driver.Kinds() {
		for _, c := range Lacks(backend) {
			if m, ok := doorCaps[c]; ok {
				t.Errorf("the door needs %s (it calls %s), which %s lacks: every tool would fail there", c, m, backend)
			}
		}
	}

	for _, tool := range All() {
		if why, ok := needsBeyondHandler[tool.Name]; ok {
			t.Logf("%s: not checked: %s", tool.Name, why)
			continue
		}
		h, ok := decls[tool.Name]
		if !ok {
			t.Errorf("%s: no define or defineOn call declares it in this package", tool.Name)
			continue
		}
		used := map[Capability][]string{}
		for m := range r.reached(h) {
			if c := r.need(t, m, tool.Name); c != "" {
				used[c] = append(used[c], m)
			}
		}
		declared := Needs(tool.Name)
		for c, ms := range used {
			if _, base := doorCaps[c]; base || slices.Contains(declared, c) {
				continue
			}
			slices.Sort(ms)
			t.Errorf("%s: its handler calls %s, which needs %s, but toolNeeds declares %v", tool.Name, strings.Join(ms, ", "), c, declared)
		}
		for _, c := range declared {
			if c == CapUndeclared {
				t.Errorf("%s: toolNeeds does not say what it needs", tool.Name)
				continue
			}
			if _, ok := used[c]; !ok {
				t.Errorf("%s: toolNeeds declares %s, but its handler calls no method that needs it", tool.Name, c)
			}
		}
	}
}

// TestChangesHaveAPlace fails when a tool that reports changes builds a
// result whose data has no place for them (see changesHolder): the door
// would fail the call as a cdpkit bug. It reads the Result literals its
// handler reaches.
func TestChangesHaveAPlace(t *testing.T) {
	t.Parallel()
	r := loadReach(t)
	decls := r.toolHandlers(t)
	holder := r.pkg.Scope().Lookup("changesHolder").Type().Underlying().(*types.Interface)
	result := r.pkg.Scope().Lookup("Result").Type()
	for _, tool := range All() {
		if tool.Changes == NoChanges {
			continue
		}
		results := 0
		r.walk(decls[tool.Name], func(n ast.Node) {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !types.Identical(r.info.TypeOf(lit), result) {
				return
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if k, _ := kv.Key.(*ast.Ident); !ok || k == nil || k.Name != "Data" {
					continue
				}
				results++
				if typ := r.info.TypeOf(kv.Value); !types.Implements(typ, holder) {
					t.Errorf("%s reports changes, but its result's data %s (%s) has no place for them: embed changed or changedIfAny behind a pointer, or use a changesMap",
						tool.Name, types.ExprString(kv.Value), types.TypeString(typ, types.RelativeTo(r.pkg)))
				}
			}
		})
		if results == 0 {
			t.Errorf("%s reports changes, but its handler builds no Result with Data", tool.Name)
		}
	}
}

// need is the capability method m (Type.Method, or Method on an unnamed
// interface) needs, failing the test when the table does not say.
func (r *reach) need(t *testing.T, m, who string) Capability {
	t.Helper()
	c, ok := lookupNeed(m)
	if !ok {
		t.Errorf("%s calls %s, which driverMethodNeeds does not map to a capability", who, m)
	}
	return c
}

// lookupNeed finds m, Type.Method, in driverMethodNeeds as it is, else by
// its method name.
func lookupNeed(m string) (Capability, bool) {
	if c, ok := driverMethodNeeds[m]; ok {
		return c, true
	}
	_, name, typed := strings.Cut(m, ".")
	if !typed {
		return "", false
	}
	c, ok := driverMethodNeeds[name]
	return c, ok
}

// reach is this package, type-checked, for following calls.
type reach struct {
	pkg   *types.Package
	info  *types.Info
	files []*ast.File
	funcs map[*types.Func]*ast.FuncDecl // every function and method declared here
}

// loadReach type-checks this package against its dependencies' export
// data, as go list builds it, once for the tests that read it.
func loadReach(t *testing.T) *reach {
	t.Helper()
	r, err := typeChecked()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var typeChecked = sync.OnceValues(func() (*reach, error) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export,Dir,GoFiles", ".").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export -deps .: %v", err)
	}
	type listed struct {
		ImportPath, Export, Dir string
		GoFiles                 []string
	}
	exports := map[string]string{}
	var self listed // go list -deps lists the package itself last
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		if err := dec.Decode(&self); err != nil {
			return nil, err
		}
		exports[self.ImportPath] = self.Export
	}
	fset := token.NewFileSet()
	r := &reach{funcs: map[*types.Func]*ast.FuncDecl{}, info: &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
	}}
	for _, name := range self.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(self.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		r.files = append(r.files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	if r.pkg, err = (&types.Config{Importer: imp}).Check(self.ImportPath, fset, r.files, r.info); err != nil {
		return nil, fmt.Errorf("type-checking %s: %v", self.ImportPath, err)
	}
	for _, f := range r.files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				r.funcs[r.info.Defs[fd.Name].(*types.Func)] = fd
			}
		}
	}
	return r, nil
})

// method is the declaration of this package's method recv.name.
func (r *reach) method(recv, name string) ast.Node {
	for fn, d := range r.funcs {
		if fn.Name() != name || d.Recv == nil {
			continue
		}
		if s := fn.Signature().Recv(); s != nil && strings.HasSuffix(types.TypeString(s.Type(), nil), "."+recv) {
			return d
		}
	}
	panic("no method " + recv + "." + name)
}

// toolHandlers finds each tool's handler: the second argument of the
// define or defineOn call whose Tool names it.
func (r *reach) toolHandlers(t *testing.T) map[string]ast.Node {
	t.Helper()
	out := map[string]ast.Node{}
	for _, f := range r.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			fun := ast.Unparen(call.Fun)
			if ix, ok := fun.(*ast.IndexExpr); ok { // define[In](…)
				fun = ix.X
			}
			fn, ok := fun.(*ast.Ident)
			if !ok || fn.Name != "define" && fn.Name != "defineOn" {
				return true
			}
			lit, ok := call.Args[0].(*ast.CompositeLit)
			if !ok {
				return true
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if k, _ := kv.Key.(*ast.Ident); !ok || k == nil || k.Name != "Name" {
					continue
				}
				v, ok := kv.Value.(*ast.BasicLit)
				if !ok {
					continue
				}
				name, _ := strconv.Unquote(v.Value)
				h := ast.Node(call.Args[1])
				if id, ok := call.Args[1].(*ast.Ident); ok {
					if fn, ok := r.info.Uses[id].(*types.Func); ok && r.funcs[fn] != nil {
						h = r.funcs[fn]
					}
				}
				out[name] = h
			}
			return true
		})
	}
	return out
}

// reached returns the methods of the backend contract that code reaches,
// through this package's functions and methods, as Type.Method (Method
// on an unnamed interface).
func (r *reach) reached(root ast.Node) map[string]bool {
	out := map[string]bool{}
	r.walk(root, func(n ast.Node) {
		if n, ok := n.(*ast.SelectorExpr); ok {
			if sel, ok := r.info.Selections[n]; ok && sel.Kind() != types.FieldVal {
				if m, ok := r.contract(sel); ok {
					out[m] = true
				}
			}
		}
	})
	return out
}

// walk visits the nodes of root and of this package's functions and
// methods it reaches, each function once.
func (r *reach) walk(root ast.Node, visit func(ast.Node)) {
	seen := map[*types.Func]bool{}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if n == nil {
				return true
			}
			visit(n)
			if id, ok := n.(*ast.Ident); ok {
				if fn, ok := r.info.Uses[id].(*types.Func); ok {
					fn = fn.Origin()
					if d := r.funcs[fn]; d != nil && !seen[fn] {
						seen[fn] = true
						walk(d.Body)
					}
				}
			}
			return true
		})
	}
	walk(root)
}

// contract reports whether a selected method is one of a backend's, and
// names it: a method of the contract's packages called through an
// interface, or on a concrete type when the table names it, or a method
// of an interface this package asks a backend for (a role it may
// implement) that the table names.
func (r *reach) contract(sel *types.Selection) (string, bool) {
	fn := sel.Obj().(*types.Func)
	recv := sel.Recv()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	m := fn.Name()
	if n, ok := recv.(*types.Named); ok {
		m = n.Obj().Name() + "." + m
	}
	_, iface := recv.Underlying().(*types.Interface)
	_, listed := lookupNeed(m)
	switch {
	case fn.Pkg() == nil:
		return "", false
	case isDriverPkg(fn.Pkg().Path()):
		return m, iface || listed
	case fn.Pkg() == r.pkg:
		return m, iface && listed
	}
	return "", false
}
