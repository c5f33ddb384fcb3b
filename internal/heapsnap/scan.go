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

// integer reads a JSON integer.
func (s *scanner) integer() (int64, error) {
	if _, err := s.peek(); err != nil {
		return 0, err
	}
	var n int64
	neg, digits := false, 0
	for {
		c, err := s.r.ReadByte()
		if err == io.EOF && digits > 0 {
			break
		}
		if err != nil {
			return 0, s.errorf("unexpected end of file in a number")
		}
		s.off++
		switch {
		case c == '-' && digits == 0 && !neg:
			neg = true
			continue
		case c >= '0' && c <= '9':
			n = n*10 + int64(c-'0')
			digits++
			continue
		}
		s.r.UnreadByte()
		s.off--
		break
	}
	if digits == 0 {
		c, _ := s.peek()
		return 0, s.errorf("got %q, want an integer", c)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// ints reads an array of integers, calling f with each in order.
func (s *scanner) ints(f func(int64)) error {
	return s.array(func() error {
		n, err := s.integer()
		if err != nil {
			return err
		}
		f(n)
		return nil
	})
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
