package lease

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Origin is the creation ledger's record of a tab cdpkit opened. It
// outlives the tab's lease: only the tab closing removes it (see
// PruneOrigins). A tab without one has origin "unknown", never "human".
type Origin struct {
	TargetID  string `json:"targetId"`
	Label     string `json:"label"`
	CreatedAt int64  `json:"createdAt"` // unix ms
}

// OriginRow is a tab's ledger entry as Origins reads it.
type OriginRow struct {
	Origin
	Unreadable string // errno name or "unparseable"; Origin is empty then
}

func (s *Store) originPath(t Tab) string {
	return filepath.Join(s.dir, "origin-"+browserKey(t.Backend, t.Browser)+"-"+fileID(t.TargetID)+".json")
}

// RecordOrigin notes that cdpkit opened t, for label. A tab already noted
// keeps its first record.
func (s *Store) RecordOrigin(t Tab, label string) error {
	if err := CheckLabel(label); err != nil {
		return err
	}
	tmp, err := s.writeTemp(Origin{TargetID: t.TargetID, Label: label, CreatedAt: s.now().UnixMilli()})
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, s.originPath(t)); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// OriginOf returns t's ledger entry; ok is false when there is none.
func (s *Store) OriginOf(t Tab) (row OriginRow, ok bool) {
	return readOrigin(s.originPath(t))
}

func readOrigin(path string) (OriginRow, bool) {
	var row OriginRow
	r, err := readJSON[Origin](path)
	if errors.Is(err, fs.ErrNotExist) {
		return row, false
	}
	if err != nil {
		row.Unreadable = unreadableReason(err)
		return row, true
	}
	if r.TargetID == "" {
		row.Unreadable = "unparseable"
		return row, true
	}
	row.Origin = r
	return row, true
}

// Origins returns the ledger of one browser, by target id, unreadable
// entries included.
func (s *Store) Origins(backend, browser string) (map[string]OriginRow, error) {
	prefix := "origin-" + browserKey(backend, browser) + "-"
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]OriginRow)
	listed := make(map[string]bool)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".json") {
			continue
		}
		listed[name] = true
		row, ok := s.seen.read(e, filepath.Join(s.dir, name))
		if !ok {
			continue
		}
		id := row.TargetID
		if row.Unreadable != "" {
			id = strings.TrimSuffix(strings.TrimPrefix(name, prefix), ".json")
		}
		out[id] = row
	}
	s.seen.keep(prefix, listed)
	return out, nil
}

// originCache keeps the ledger entries already read, by file name: a
// record is written once and never changed (RecordOrigin keeps the first),
// so list_pages, which reads the ledger on every call, need not open and
// parse each file again. An entry is trusted while its file has the size
// and modification time it had when read; unreadable ones are read again.
type originCache struct {
	mu   sync.Mutex
	rows map[string]cachedOrigin
}

type cachedOrigin struct {
	size int64
	mod  time.Time
	row  OriginRow
}

// read returns the entry of the ledger file e at path, from the cache when
// the file is unchanged.
func (c *originCache) read(e fs.DirEntry, path string) (OriginRow, bool) {
	fi, err := e.Info()
	if err != nil {
		return readOrigin(path)
	}
	c.mu.Lock()
	got, ok := c.rows[e.Name()]
	c.mu.Unlock()
	if ok && got.size == fi.Size() && got.mod.Equal(fi.ModTime()) {
		return got.row, true
	}
	row, ok := readOrigin(path)
	if ok && row.Unreadable == "" {
		c.mu.Lock()
		if c.rows == nil {
			c.rows = make(map[string]cachedOrigin)
		}
		c.rows[e.Name()] = cachedOrigin{size: fi.Size(), mod: fi.ModTime(), row: row}
		c.mu.Unlock()
	}
	return row, ok
}

// keep drops the cached entries under prefix whose files are no longer
// listed.
func (c *originCache) keep(prefix string, listed map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.rows {
		if strings.HasPrefix(name, prefix) && !listed[name] {
			delete(c.rows, name)
		}
	}
}

// pruneGrace spares a young ledger entry from PruneOrigins: another
// process may have just opened its tab, before this one heard of it.
const pruneGrace = 10 * time.Second

// PruneOrigins removes the ledger entries of one browser whose tab is not
// in open (target ids of every tab the browser has, not one client's),
// and returns the entries it kept, as [Store.Origins] would read them
// next: one read of the ledger for both.
func (s *Store) PruneOrigins(backend, browser string, open map[string]bool) (map[string]OriginRow, error) {
	rows, err := s.Origins(backend, browser)
	if err != nil {
		return nil, err
	}
	cutoff := s.now().Add(-pruneGrace).UnixMilli()
	for id, row := range rows {
		if row.Unreadable == "" && !open[id] && row.CreatedAt < cutoff {
			if err := os.Remove(s.originPath(Tab{Backend: backend, Browser: browser, TargetID: id})); err == nil || errors.Is(err, fs.ErrNotExist) {
				delete(rows, id)
			}
		}
	}
	return rows, nil
}
