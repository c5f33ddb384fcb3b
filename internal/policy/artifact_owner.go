package policy

import (
	"errors"
	"os"
	"sync"
)

// Every cdpkit process of a user shares one artifact dir by default, so
// two agents that both save trace.json would silently overwrite each
// other's file. A write therefore replaces an existing file only when this
// Artifacts wrote it (the same file, by device and inode, not only by
// name): an agent may save over its own files, never over another
// process's, nor over one the user put there. Names cdpkit picks itself
// carry a time and a tab id, so only names an agent chose meet this rule.

// maxOwnFiles bounds the files an Artifacts remembers writing; past it
// the oldest are forgotten (and then count as another process's).
const maxOwnFiles = 10000

// ownFiles are the files an Artifacts wrote. The zero value is ready.
type ownFiles struct {
	mu    sync.Mutex
	files map[string]os.FileInfo // guarded by mu; by path relative to the dir
	order []string               // guarded by mu; oldest first
}

// ErrExists means a write would replace a file this process did not
// write.
var ErrExists = errors.New("policy: the file exists and is not this process's")

// foreign refuses to replace rel if it is a regular file this Artifacts
// did not write. What is not a regular file is checkTarget's to refuse.
func (a *Artifacts) foreign(name, rel string) error {
	fi, err := a.root.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	a.own.mu.Lock()
	prev := a.own.files[rel]
	a.own.mu.Unlock()
	if prev != nil && os.SameFile(prev, fi) {
		return nil
	}
	return &PathError{Path: name, Reason: "exists and was not written by this cdpkit process (another agent's file, or yours from before)",
		Hint: "choose another file name, or remove the file first to replace it", exists: true}
}

// noteWritten remembers rel as written by this Artifacts.
func (a *Artifacts) noteWritten(rel string) {
	fi, err := a.root.Lstat(rel)
	if err != nil {
		return
	}
	o := &a.own
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.files == nil {
		o.files = make(map[string]os.FileInfo)
	}
	if _, ok := o.files[rel]; !ok {
		o.order = append(o.order, rel)
	}
	o.files[rel] = fi
	for len(o.order) > maxOwnFiles {
		delete(o.files, o.order[0])
		o.order = o.order[1:]
	}
}
