package plan

import (
	"errors"
	"math"
)

// A tree is one JSON value parsed in a single pass: every value it contains, in document
// (pre-)order, as offsets into buf. Decoding an expression through a tree costs the expression's
// own fields, not its subtree: the subtree was scanned once, when the tree was built. A tree is
// never modified after scan returns, so the expressions of one request may share it across
// goroutines.
type tree struct {
	buf  []byte
	vals []value
}

// A value is one JSON value of a tree. The members of an object (elements of an array) follow it
// directly in tree.vals; next skips a value's whole subtree.
type value struct {
	start, end int32 // the value's bytes, buf[start:end]
	key0, key1 int32 // for an object member: its key's bytes between the quotes
	next       int32 // the index of the first value after this value's subtree
	kind       byte  // '{', '[', '"', 'n' (null), 't', 'f', '0' (number)
	// esc marks a string (keyEsc a key) whose bytes are not its text as they are: it holds an
	// escape or a non-ASCII byte (which encoding/json may replace by U+FFFD).
	esc, keyEsc bool
}

// maxDepth is encoding/json's nesting limit: a document the standard decoder refuses must not
// decode here.
const maxDepth = 10000

var errSyntax = errors.New("plan: malformed JSON")

// scan parses buf, which must hold exactly one JSON value (with optional white space around it).
// It accepts no document that encoding/json rejects; a document it rejects is handed to
// encoding/json by its callers, so that errors keep encoding/json's wording.
func scan(buf []byte) (*tree, error) {
	if len(buf) > math.MaxInt32 {
		return nil, errSyntax
	}
	s := scanner{t: &tree{buf: buf}}
	s.space()
	if err := s.value(0, -1, -1, false); err != nil {
		return nil, err
	}
	s.space()
	if s.off != len(buf) {
		return nil, errSyntax
	}
	return s.t, nil
}

type scanner struct {
	t   *tree
	off int
}

func (s *scanner) space() {
	b := s.t.buf
	for s.off < len(b) {
		switch b[s.off] {
		case ' ', '\t', '\n', '\r':
			s.off++
		default:
			return
		}
	}
}

// separator consumes what follows a member or an element: the closing byte (done) or a comma.
func (s *scanner) separator(closing byte) (done bool, err error) {
	s.space()
	b := s.t.buf
	if s.off >= len(b) {
		return false, errSyntax
	}
	switch b[s.off] {
	case closing:
		s.off++
		return true, nil
	case ',':
		s.off++
		s.space()
		return false, nil
	}
	return false, errSyntax
}

// open steps past the bracket at s.off that opens a container nested at depth+1, and past its
// closing bracket too when the container is empty.
func (s *scanner) open(closing byte, depth int) (empty bool, err error) {
	if depth+1 > maxDepth {
		return false, errSyntax
	}
	s.off++
	s.space()
	if b := s.t.buf; s.off < len(b) && b[s.off] == closing {
		s.off++
		return true, nil
	}
	return false, nil
}

// value parses the value at s.off and appends it (and its subtree) to the tree; key0 and key1
// locate its key when it is an object member.
func (s *scanner) value(depth int, key0, key1 int32, keyEsc bool) error {
	b := s.t.buf
	if s.off >= len(b) {
		return errSyntax
	}
	idx := len(s.t.vals)
	s.t.vals = append(s.t.vals, value{start: int32(s.off), key0: key0, key1: key1, keyEsc: keyEsc})
	var kind byte
	esc := false
	switch c := b[s.off]; {
	case c == '{':
		kind = '{'
		empty, err := s.open('}', depth)
		if empty || err != nil {
			if err != nil {
				return err
			}
			break
		}
		for {
			if s.off >= len(b) || b[s.off] != '"' {
				return errSyntax
			}
			k0 := s.off + 1
			kEsc, err := s.str()
			if err != nil {
				return err
			}
			k1 := s.off - 1
			s.space()
			if s.off >= len(b) || b[s.off] != ':' {
				return errSyntax
			}
			s.off++
			s.space()
			if err := s.value(depth+1, int32(k0), int32(k1), kEsc); err != nil {
				return err
			}
			if done, err := s.separator('}'); done || err != nil {
				if err != nil {
					return err
				}
				break
			}
		}
	case c == '[':
		kind = '['
		empty, err := s.open(']', depth)
		if empty || err != nil {
			if err != nil {
				return err
			}
			break
		}
		for {
			if err := s.value(depth+1, -1, -1, false); err != nil {
				return err
			}
			if done, err := s.separator(']'); done || err != nil {
				if err != nil {
					return err
				}
				break
			}
		}
	case c == '"':
		kind = '"'
		var err error
		if esc, err = s.str(); err != nil {
			return err
		}
	case c == 't':
		kind = 't'
		if err := s.word("true"); err != nil {
			return err
		}
	case c == 'f':
		kind = 'f'
		if err := s.word("false"); err != nil {
			return err
		}
	case c == 'n':
		kind = 'n'
		if err := s.word("null"); err != nil {
			return err
		}
	case c == '-' || c >= '0' && c <= '9':
		kind = '0'
		if err := s.number(); err != nil {
			return err
		}
	default:
		return errSyntax
	}
	v := &s.t.vals[idx]
	v.end = int32(s.off)
	v.next = int32(len(s.t.vals))
	v.kind = kind
	v.esc = esc
	return nil
}

// str scans the string starting at s.off (its opening quote) and reports whether its text
// differs from its bytes, or may (see value.esc).
func (s *scanner) str() (esc bool, err error) {
	b := s.t.buf
	s.off++
	for s.off < len(b) {
		c := b[s.off]
		switch {
		case c == '"':
			s.off++
			return esc, nil
		case c < 0x20:
			return false, errSyntax
		case c >= 0x80:
			esc = true
			s.off++
		case c == '\\':
			esc = true
			if s.off+1 >= len(b) {
				return false, errSyntax
			}
			switch b[s.off+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.off += 2
			case 'u':
				if s.off+6 > len(b) {
					return false, errSyntax
				}
				for _, h := range b[s.off+2 : s.off+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false, errSyntax
					}
				}
				s.off += 6
			default:
				return false, errSyntax
			}
		default:
			s.off++
		}
	}
	return false, errSyntax
}

func (s *scanner) word(w string) error {
	b := s.t.buf
	if len(b)-s.off < len(w) || string(b[s.off:s.off+len(w)]) != w {
		return errSyntax
	}
	s.off += len(w)
	return nil
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	b := s.t.buf
	if b[s.off] == '-' {
		s.off++
	}
	switch {
	case s.off < len(b) && b[s.off] == '0':
		s.off++
	case s.off < len(b) && b[s.off] >= '1' && b[s.off] <= '9':
		s.digits()
	default:
		return errSyntax
	}
	if s.off < len(b) && b[s.off] == '.' {
		s.off++
		if s.digits() == 0 {
			return errSyntax
		}
	}
	if s.off < len(b) && (b[s.off] == 'e' || b[s.off] == 'E') {
		s.off++
		if s.off < len(b) && (b[s.off] == '+' || b[s.off] == '-') {
			s.off++
		}
		if s.digits() == 0 {
			return errSyntax
		}
	}
	return nil
}

func (s *scanner) digits() int {
	b := s.t.buf
	n := 0
	for s.off < len(b) && b[s.off] >= '0' && b[s.off] <= '9' {
		s.off++
		n++
	}
	return n
}

// raw returns value i's bytes, capped so that appending to them cannot write into buf.
func (t *tree) raw(i int32) []byte {
	v := &t.vals[i]
	return t.buf[v.start:v.end:v.end]
}

// key returns the key of object member i as it is written (see value.keyEsc).
func (t *tree) key(i int32) []byte {
	v := &t.vals[i]
	return t.buf[v.key0:v.key1]
}

// member finds the member of object i whose key is written exactly as name; -1 when none is.
// The last one wins, as in encoding/json's maps.
func (t *tree) member(i int32, name string) int32 {
	found := int32(-1)
	for j := i + 1; j < t.vals[i].next; j = t.vals[j].next {
		if !t.vals[j].keyEsc && string(t.key(j)) == name {
			found = j
		}
	}
	return found
}

// plainObject reports whether object i's keys are all written without escapes and distinct, so
// that its members are what encoding/json would put in a map.
func (t *tree) plainObject(i int32) bool {
	n := 0
	for j := i + 1; j < t.vals[i].next; j = t.vals[j].next {
		n++
	}
	if n > 32 { // not quadratic in a large object
		keys := make(map[string]bool, n)
		for j := i + 1; j < t.vals[i].next; j = t.vals[j].next {
			k := string(t.key(j))
			if t.vals[j].keyEsc || keys[k] {
				return false
			}
			keys[k] = true
		}
		return true
	}
	for j := i + 1; j < t.vals[i].next; j = t.vals[j].next {
		if t.vals[j].keyEsc {
			return false
		}
		for k := t.vals[j].next; k < t.vals[i].next; k = t.vals[k].next {
			if string(t.key(k)) == string(t.key(j)) {
				return false
			}
		}
	}
	return true
}
