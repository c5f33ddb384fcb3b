package record

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // frame sizes
	_ "image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// LedgerName is the ledger's file name in a spool dir: one line per frame,
// "file<TAB>unix-ns<TAB>bytes<TAB>width<TAB>height".
const LedgerName = "ledger.tsv"

// Entry is one spooled frame, as the ledger records it.
type Entry struct {
	File   string    // name within the spool dir
	At     time.Time // when the browser painted it
	Size   int64
	Width  int
	Height int
}

// Spool writes frames to a directory as they arrive, one file each, and
// appends a ledger line per frame, so memory stays flat however long the
// recording runs. It is safe for concurrent use.
type Spool struct {
	dir   string
	ext   string
	start time.Time
	max   Limits

	mu     sync.Mutex // guards the fields below
	ledger *os.File   // nil once closed
	n      int        // frames kept
	bytes  int64      // their bytes
	capped *CapError  // set once the cap is reached
}

// NewSpool creates dir (which must not exist) and a spool in it for frames
// of format "jpeg" or "png", capped by max from start.
func NewSpool(dir, format string, start time.Time, max Limits) (*Spool, error) {
	ext := ".jpg"
	if format == "png" {
		ext = ".png"
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("record: creating the spool: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("record: creating the spool: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, LedgerName), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("record: creating the ledger: %w", err)
	}
	return &Spool{dir: dir, ext: ext, start: start, max: max, ledger: f}, nil
}

// Dir is the spool's directory.
func (s *Spool) Dir() string { return s.dir }

// Start is the time the recording started.
func (s *Spool) Start() time.Time { return s.start }

// Add writes one frame painted at at. A frame that would cross a cap is
// not kept: Add returns a *CapError then, and for every later frame.
func (s *Spool) Add(data []byte, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.capped != nil {
		return s.capped
	}
	if s.ledger == nil {
		return fmt.Errorf("record: the spool is closed")
	}
	elapsed := at.Sub(s.start)
	if over := s.bytes+int64(len(data)) > s.max.bytes(); over || elapsed > s.max.duration() {
		s.capped = &CapError{Bytes: s.bytes, Elapsed: elapsed, Limits: s.max, ByBytes: over}
		return s.capped
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("record: reading a frame's size: %w", err)
	}
	name := fmt.Sprintf("frame-%06d%s", s.n, s.ext)
	if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o600); err != nil {
		return fmt.Errorf("record: spooling a frame: %w", err)
	}
	line := fmt.Sprintf("%s\t%d\t%d\t%d\t%d\n", name, at.UnixNano(), len(data), cfg.Width, cfg.Height)
	if _, err := s.ledger.WriteString(line); err != nil {
		return fmt.Errorf("record: writing the ledger: %w", err)
	}
	s.n++
	s.bytes += int64(len(data))
	return nil
}

// Frames returns how many frames were kept and their bytes.
func (s *Spool) Frames() (int, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.bytes
}

// Capped returns the cap the spool reached, or nil.
func (s *Spool) Capped() *CapError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capped
}

// Close closes the ledger; later frames are refused. It is idempotent.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ledger == nil {
		return nil
	}
	err := s.ledger.Close()
	s.ledger = nil
	return err
}

// Remove deletes the spool dir.
func (s *Spool) Remove() error {
	s.Close()
	return os.RemoveAll(s.dir)
}

// ReadLedger reads a spool dir's ledger. A torn last line (a crash while
// writing it) is ignored.
func ReadLedger(dir string) ([]Entry, error) {
	f, err := policy.OpenRegular(filepath.Join(dir, LedgerName))
	if err != nil {
		return nil, fmt.Errorf("record: reading the ledger: %w", err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 5 {
			continue
		}
		ns, err1 := strconv.ParseInt(fields[1], 10, 64)
		size, err2 := strconv.ParseInt(fields[2], 10, 64)
		w, err3 := strconv.Atoi(fields[3])
		h, err4 := strconv.Atoi(fields[4])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || strings.ContainsAny(fields[0], "/\\'") {
			continue
		}
		out = append(out, Entry{File: fields[0], At: time.Unix(0, ns), Size: size, Width: w, Height: h})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("record: reading the ledger: %w", err)
	}
	return out, nil
}
