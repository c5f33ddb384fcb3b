package driver

import (
	"fmt"
	"sort"
	"sync"
)

// Kind is what a backend is made of, as typed nil values of the types its
// Backend, Driver and tabs have: type assertions on them tell which roles
// the backend plays before any browser runs, so what it offers follows
// from the methods it implements and is never a hand-kept list.
type Kind struct {
	Name    string
	Backend Backend
	Driver  Driver
	Tab     TabDriver
}

var (
	kindsMu sync.RWMutex
	kinds   = map[string]Kind{}
)

// Register makes a backend's Kind known by its name; each backend
// package registers itself in an init function. Registering a name twice
// panics.
func Register(k Kind) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if _, dup := kinds[k.Name]; dup {
		panic(fmt.Sprintf("driver: backend %q registered twice", k.Name))
	}
	kinds[k.Name] = k
}

// KindOf returns the registered Kind named; false when no linked backend
// package registered it.
func KindOf(name string) (Kind, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Kinds lists the registered backends' names, sorted.
func Kinds() []string {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	out := make([]string, 0, len(kinds))
	for n := range kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
