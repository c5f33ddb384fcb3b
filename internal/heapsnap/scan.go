package heapsnap

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// scanner reads the JSON of a .heapsnapshot byte by byte. It knows just
// enough JSON to walk V8's layout without materialising its big arrays:
// numbers are parsed in place, strings are kept only when asked for.
type scanner struct {
	r   *bufio.Reader
	off int64 // bytes consumed, for error messages
	buf []byte
}

func newScanner(r io.Reader) *scanner {
	return &scanner{r: bufio.NewReaderSize(r, 256<<10)}
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("heapsnap: at byte %d: %s", s.off, fmt.Sprintf(format, args...))
}

func (s *scanner) readByte() (byte, error) {
	c, err := s.r.ReadByte()
	if err == io.EOF {
		return 0, s.errorf("unexpected end of file")
	}
	if err == nil {
		s.off++
	}
	return c, err
}

// peek returns the next byte that is not white space, without consuming it.
func (s *scanner) peek() (byte, error) {
	for {
		c, err := s.readByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if err := s.r.UnreadByte(); err != nil {
			return 0, err
		}
		s.off--
		return c, nil
	}
}

// expect consumes the next non-space byte, which must be c.
func (s *scanner) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.errorf("got %q, want %q", got, c)
	}
	_, err = s.readByte()
	return err
}

// rawString reads a string token and returns it with its quotes and
// escapes as they are in the file; the slice is valid until the next read.
func (s *scanner) rawString() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	s.buf = append(s.buf[:0], '"')
	for {
		c, err := s.readByte()
		if err != nil {
			return nil, err
		}
		s.buf = append(s.buf, c)
		switch c {
		case '\\':
			e, err := s.readByte()
			if err != nil {
				return nil, err
			}
			s.buf = append(s.buf, e)
		case '"':
			return s.buf, nil
		}
	}
}

// str reads a string token and decodes it.
func (s *scanner) str() (string, error) {
	raw, err := s.rawString()
	if err != nil {
		return "", err
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", s.errorf("bad string: %v", err)
	}
	return v, nil
}

// skipString reads past a string token without keeping it.
func (s *scanner) skipString() error {
	if err := s.expect('"'); err != nil {
		return err
	}
	for {
		c, err := s.readByte()
		if err != nil {
			return err
		}
		switch c {
		case '\\':
			if _, err := s.readByte(); err != nil {
				return err
			}
		case '"':
			return nil
		}
	}
}

// ints reads an array of integers, calling f with each in order. It
// parses straight from the reader's buffer: the node and edge arrays are
// nearly all of a snapshot's bytes.
func (s *scanner) ints(f func(int64)) error {
	if err := s.expect('['); err != nil {
		return err
	}
	const (
		start      = iota // after '[': a number or ']'
		inNumber          // reading digits
		afterNum          // after a number and space: ',' or ']'
		afterComma        // a number
	)
	state, n, digits, neg := start, int64(0), 0, false
	emit := func() error {
		if digits == 0 {
			return s.errorf("a '-' without digits")
		}
		if neg {
			n = -n
		}
		f(n)
		n, digits, neg = 0, 0, false
		return nil
	}
	for {
		if _, err := s.r.Peek(1); err != nil {
			return s.errorf("unexpected end of file in an array")
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		for i, c := range buf {
			switch {
			case c >= '0' && c <= '9':
				if state == afterNum {
					return s.errorf("two numbers without a comma")
				}
				state = inNumber
				n = n*10 + int64(c-'0')
				digits++
			case c == '-' && (state == start || state == afterComma):
				neg, state = true, inNumber
			case c == ' ' || c == '\n' || c == '\r' || c == '\t':
				if state == inNumber {
					if err := emit(); err != nil {
						return err
					}
					state = afterNum
				}
			case c == ',' && (state == inNumber || state == afterNum):
				if state == inNumber {
					if err := emit(); err != nil {
						return err
					}
				}
				state = afterComma
			case c == ']' && state != afterComma:
				if state == inNumber {
					if err := emit(); err != nil {
						return err
					}
				}
				s.r.Discard(i + 1)
				s.off += int64(i + 1)
				return nil
			default:
				s.off += int64(i)
				return s.errorf("got %q in an array of integers", c)
			}
		}
		s.r.Discard(len(buf))
		s.off += int64(len(buf))
	}
}

// array reads an array, calling elem to read each element.
func (s *scanner) array(elem func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if c, err := s.peek(); err != nil {
		return err
	} else if c == ']' {
		_, err = s.readByte()
		return err
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return err
		}
		s.readByte()
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return s.errorf("got %q in an array, want ',' or ']'", c)
		}
	}
}

// object reads an object, calling member with each key; member reads the
// value.
func (s *scanner) object(member func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if c, err := s.peek(); err != nil {
		return err
	} else if c == '}' {
		_, err = s.readByte()
		return err
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return err
		}
		s.readByte()
		switch c {
		case ',':
		case '}':
			return nil
		default:
			return s.errorf("got %q in an object, want ',' or '}'", c)
		}
	}
}

// raw reads any value and returns its bytes, for the small parts of the
// file (the snapshot header) that are decoded whole.
func (s *scanner) raw(limit int) ([]byte, error) {
	var out []byte
	depth := 0
	c, err := s.peek()
	if err != nil {
		return nil, err
	}
	if c != '{' && c != '[' {
		return nil, s.errorf("got %q, want an object or array", c)
	}
	for {
		c, err := s.readByte()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		if len(out) > limit {
			return nil, s.errorf("value longer than %d bytes", limit)
		}
		switch c {
		case '"':
			s.r.UnreadByte()
			s.off--
			out = out[:len(out)-1]
			str, err := s.rawString()
			if err != nil {
				return nil, err
			}
			out = append(out, str...)
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return out, nil
			}
		}
	}
}

// skip reads past any value.
func (s *scanner) skip() error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '"':
		return s.skipString()
	case c == '[':
		return s.array(s.skip)
	case c == '{':
		return s.object(func(string) error { return s.skip() })
	}
	// A number or a literal: read until a delimiter.
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return errors.Join(s.errorf("unexpected end of file"), err)
		}
		s.off++
		switch c {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			s.r.UnreadByte()
			s.off--
			return nil
		}
	}
}
