package rpc

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
)

// A StringCap bounds the strings of one reply before it is decoded. A
// reply that carries page content (an accessibility tree, a DOM snapshot)
// holds the page's text: one text node of 60 MB is a 60 MB string, which
// decoding copies several times over. With a cap, the reader cuts every
// string value of a reply over 64 KiB in place, in its raw JSON, before
// the protocol sees it: each to Each bytes while the strings kept so far
// are under Total bytes, then to Rest bytes; member names are not cut.
// Bytes are counted as the JSON writes them (escapes included); a cut
// never splits an escape, a UTF-8 sequence or a surrogate pair, so the
// reply stays valid JSON. Strings are cut without a mark: callers cap
// only what they shorten on display anyway.
type StringCap struct {
	Each, Total, Rest int
}

type capKey struct{}

// WithStringCap returns a context whose calls' replies are cut by c.
func WithStringCap(ctx context.Context, c StringCap) context.Context {
	return context.WithValue(ctx, capKey{}, c)
}

// capFrom is the size from which a reply is cut: a smaller one costs
// little to decode, and finding its id would cost every event a scan.
const capFrom = 64 << 10

// bigMessage is the size from which a message read is a large transient:
// once it is handled, the heap it grew is returned to the OS.
const bigMessage = 16 << 20

var (
	freeMu      sync.Mutex
	freeRunning bool // guarded by freeMu
	freeAgain   bool // guarded by freeMu: asked for while running
)

// FreeOSMemory returns the heap to the OS in the background, one run at
// a time. Go's scavenger gives back memory freed by a burst over minutes;
// a burst of a large reply (read, cut, decoded) left cdpkit's RSS at
// several times the reply's size until then. Forcing one collection after
// such a rare burst costs a collection and keeps RSS near what cdpkit
// holds. The reader calls it after a message of 16 MiB or more; a caller
// that decoded a large reply calls it once done with what it decoded.
func FreeOSMemory() {
	freeMu.Lock()
	defer freeMu.Unlock()
	if freeRunning {
		freeAgain = true // what was freed since the run began is freed next
		return
	}
	freeRunning = true
	go func() {
		for {
			debug.FreeOSMemory()
			freeMu.Lock()
			again := freeAgain
			freeAgain, freeRunning = false, again
			freeMu.Unlock()
			if !again {
				return
			}
		}
	}()
}

// ReturnHeap calls FreeOSMemory when the process holds much more heap
// from the OS (in use, or free but not yet returned) than it kept live at
// the last collection: over twice that (the collector's own slack) plus
// 64 MiB. Call it once a large transient is garbage (a snapshot's trees,
// once built); after ordinary calls it does nothing.
func ReturnHeap() {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	var v [4]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	if held, live := v[0]+v[1]+v[2], v[3]; held > 2*live+64<<20 {
		FreeOSMemory()
	}
}

// capReply cuts the strings of msg in place when it is the reply to a
// pending call that asked for a cap, and returns what is left of it.
func (c *Core) capReply(msg []byte) []byte {
	id, ok := topLevelID(msg)
	if !ok {
		return msg
	}
	c.Mu.Lock()
	var sc StringCap
	if cl := c.pending[id]; cl != nil {
		sc = cl.cap
	}
	c.Mu.Unlock()
	if sc.Each <= 0 || len(msg) <= min(sc.Each, sc.Rest) {
		return msg
	}
	return capStrings(msg, sc)
}

// capStrings cuts every string literal of the JSON text msg in place (see
// StringCap) and returns msg shortened. Text that is not valid JSON comes
// back changed only within its string literals.
func capStrings(msg []byte, sc StringCap) []byte {
	w, kept := 0, 0
	for i := 0; i < len(msg); {
		if msg[i] != '"' {
			msg[w] = msg[i]
			w++
			i++
			continue
		}
		start := i + 1
		end := stringEnd(msg, start)
		limit := sc.Each
		if kept >= sc.Total {
			limit = sc.Rest
		}
		cut := end
		switch {
		case isName(msg, end+1): // a member's name: kept whole, not counted
		case end-start > limit:
			cut = safeCut(msg[start:end], limit) + start
			kept += cut - start
		default:
			kept += end - start
		}
		w += copy(msg[w:], msg[i:cut])
		if end < len(msg) {
			msg[w] = '"'
			w++
			i = end + 1
		} else {
			i = end
		}
	}
	return msg[:w]
}

// isName reports whether the string that ended just before msg[i] is an
// object member's name: a colon follows it.
func isName(msg []byte, i int) bool {
	i = skipSpace(msg, i)
	return i < len(msg) && msg[i] == ':'
}

// stringEnd returns the index of the quote that closes the string whose
// content starts at msg[start], or len(msg) when it is not closed.
func stringEnd(msg []byte, start int) int {
	for j := start; j < len(msg); j++ {
		switch msg[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(msg)
}

// safeCut returns the largest n <= limit at which s, a JSON string's raw
// content, can be cut: between escapes and UTF-8 sequences, and not after
// the first half of an escaped surrogate pair.
func safeCut(s []byte, limit int) int {
	n := 0
	for n < len(s) {
		size, high := tokenLen(s[n:])
		if n+size > limit {
			break
		}
		if high {
			// A high surrogate is kept only with the escape after it.
			if n+size+6 > limit || n+size+6 > len(s) || s[n+size] != '\\' || s[n+size+1] != 'u' {
				break
			}
			size += 6
		}
		n += size
	}
	return n
}

// tokenLen returns the length of the escape or UTF-8 sequence that s
// starts with, and whether it is the escape of a high surrogate.
func tokenLen(s []byte) (int, bool) {
	b := s[0]
	switch {
	case b == '\\':
		if len(s) >= 6 && s[1] == 'u' {
			v, err := strconv.ParseUint(string(s[2:6]), 16, 16)
			return 6, err == nil && v >= 0xd800 && v <= 0xdbff
		}
		return min(2, len(s)), false
	case b < 0x80:
		return 1, false
	case b>>5 == 0b110:
		return min(2, len(s)), false
	case b>>4 == 0b1110:
		return min(3, len(s)), false
	case b>>3 == 0b11110:
		return min(4, len(s)), false
	}
	return 1, false // a stray continuation byte: invalid either way
}

// topLevelID returns the number under the key "id" of the JSON object msg,
// without decoding the rest: CDP and BiDi replies write it first or
// nearly so.
func topLevelID(msg []byte) (int64, bool) {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return 0, false
	}
	i++
	for {
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] != '"' {
			return 0, false
		}
		end := stringEnd(msg, i+1)
		if end >= len(msg) {
			return 0, false
		}
		key := msg[i+1 : end]
		i = skipSpace(msg, end+1)
		if i >= len(msg) || msg[i] != ':' {
			return 0, false
		}
		i = skipSpace(msg, i+1)
		vend := skipValue(msg, i)
		if string(key) == "id" {
			id, err := strconv.ParseInt(string(msg[i:vend]), 10, 64)
			return id, err == nil
		}
		i = skipSpace(msg, vend)
		if i >= len(msg) || msg[i] != ',' {
			return 0, false
		}
		i++
	}
}

func skipSpace(msg []byte, i int) int {
	for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\n' || msg[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value at msg[i].
func skipValue(msg []byte, i int) int {
	depth := 0
	for ; i < len(msg); i++ {
		switch msg[i] {
		case '"':
			i = stringEnd(msg, i+1)
			if depth == 0 {
				return min(i+1, len(msg))
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}
