package plan

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Expressions decoded from a tree keep it (Expr.src) with the position of their "fields" object,
// so that decoding a child finds the child's already parsed value instead of scanning its bytes
// again: a whole expression tree decodes in time linear in its size, where encoding/json (which
// validates and scans every field value it is given) took size × depth.
//
// The fast path decodes only what it decodes exactly as encoding/json would: any value it does
// not expect (a key written with escapes or in another case, a key given twice, a value of the
// wrong JSON type, a string it would have to unescape...) makes it give up, and the caller
// decodes the bytes with encoding/json as before, which yields the same value or error.
//
// The Fields values of an expression decoded here are views of the bytes it was decoded from
// (capped, so that appending to one copies it), not copies as encoding/json made: code may replace
// a field's value (Rebind does), but must not write into one, which nothing does.

// fastPath is turned off only by tests, to compare the fast path with encoding/json alone.
var fastPath = true

// exprKeys are the JSON names of Expr's fields.
var exprKeys = []string{"class", "dataType", "nullable", "deterministic", "fields", "exprId", "ordinal", "name", "id"}

// exprValue returns the value of e's field name in e's tree, when e has one and name still holds
// the bytes the tree holds (a caller may have replaced them, as Rebind does); -1 otherwise.
func (e *Expr) exprValue(name string, raw []byte) int32 {
	if !fastPath || e.src == nil || e.fieldsAt < 0 || len(raw) == 0 {
		return -1
	}
	j := e.src.member(e.fieldsAt, name)
	if j < 0 {
		return -1
	}
	v := &e.src.vals[j]
	if int(v.end-v.start) != len(raw) || &e.src.buf[v.start] != &raw[0] {
		return -1
	}
	return j
}

// locate returns a tree holding raw and raw's position in it: e's own tree when raw is one of its
// values, else a tree parsed from raw. ok is false when raw does not parse.
func (e *Expr) locate(name string, raw []byte) (*tree, int32, bool) {
	if j := e.exprValue(name, raw); j >= 0 {
		return e.src, j, true
	}
	return parse(raw)
}

func parse(raw []byte) (*tree, int32, bool) {
	if !fastPath {
		return nil, 0, false
	}
	t, err := scan(raw)
	if err != nil {
		return nil, 0, false
	}
	return t, 0, true
}

// fastExpr decodes value i of t as a *Expr (nil for null); ok is false when the caller must use
// encoding/json.
func fastExpr(t *tree, i int32) (e *Expr, ok bool) {
	switch t.vals[i].kind {
	case 'n':
		return nil, true
	case '{':
		return t.expr(i)
	}
	return nil, false
}

// fastExprs decodes value i of t as a []*Expr (nil for null); ok as for fastExpr.
func fastExprs(t *tree, i int32) ([]*Expr, bool) {
	v := &t.vals[i]
	switch v.kind {
	case 'n':
		return nil, true
	case '[':
	default:
		return nil, false
	}
	n := 0
	for j := i + 1; j < v.next; j = t.vals[j].next {
		n++
	}
	out := make([]*Expr, 0, n)
	for j := i + 1; j < v.next; j = t.vals[j].next {
		e, ok := fastExpr(t, j)
		if !ok {
			return nil, false
		}
		out = append(out, e)
	}
	return out, true
}

// expr decodes object i as an Expr.
func (t *tree) expr(i int32) (*Expr, bool) {
	e := &Expr{src: t, fieldsAt: -1}
	var seen uint16
	for j := i + 1; j < t.vals[i].next; j = t.vals[j].next {
		v := &t.vals[j]
		if v.keyEsc {
			return nil, false
		}
		k := t.key(j)
		bit := uint16(0)
		ok := true
		switch string(k) {
		case "class":
			bit = 1 << 0
			e.Class, ok = t.str(j, e.Class)
		case "dataType":
			bit = 1 << 1
			e.DataType = t.raw(j)
		case "nullable":
			bit = 1 << 2
			e.Nullable, ok = t.bool(j, e.Nullable)
		case "deterministic":
			bit = 1 << 3
			e.Deterministic, ok = t.bool(j, e.Deterministic)
		case "fields":
			bit = 1 << 4
			switch v.kind {
			case 'n':
			case '{':
				e.fieldsAt = j
				e.Fields, ok = t.rawMap(j)
			default:
				ok = false
			}
		case "exprId":
			bit = 1 << 5
			switch v.kind {
			case 'n':
			case '0':
				var n int64
				n, ok = t.int(j, 64)
				e.ExprID = &n
			default:
				ok = false
			}
		case "ordinal", "id":
			bit = 1 << 6
			if k[0] == 'i' {
				bit = 1 << 7
			}
			switch v.kind {
			case 'n':
			case '0':
				n64, iok := t.int(j, strconv.IntSize)
				n := int(n64)
				ok = iok
				if k[0] == 'i' {
					e.ID = &n
				} else {
					e.Ordinal = &n
				}
			default:
				ok = false
			}
		case "name":
			bit = 1 << 8
			e.Name, ok = t.str(j, e.Name)
		default:
			// encoding/json matches struct fields case-insensitively.
			for _, name := range exprKeys {
				if bytes.EqualFold(k, []byte(name)) {
					return nil, false
				}
			}
		}
		if !ok || seen&bit != 0 {
			return nil, false
		}
		seen |= bit
	}
	return e, true
}

// str decodes string value j (null leaves old, as encoding/json does).
func (t *tree) str(j int32, old string) (string, bool) {
	v := &t.vals[j]
	switch {
	case v.kind == 'n':
		return old, true
	case v.kind != '"' || v.esc:
		return "", false
	}
	return string(t.buf[v.start+1 : v.end-1]), true
}

func (t *tree) bool(j int32, old bool) (bool, bool) {
	switch t.vals[j].kind {
	case 'n':
		return old, true
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// int decodes integral number j as encoding/json does for an integer of that many bits.
func (t *tree) int(j int32, bits int) (int64, bool) {
	n, err := strconv.ParseInt(string(t.raw(j)), 10, bits)
	return n, err == nil
}

// rawMap decodes object j as a map of raw values.
func (t *tree) rawMap(j int32) (map[string]json.RawMessage, bool) {
	n := 0
	for m := j + 1; m < t.vals[j].next; m = t.vals[m].next {
		n++
	}
	out := make(map[string]json.RawMessage, n)
	for m := j + 1; m < t.vals[j].next; m = t.vals[m].next {
		v := &t.vals[m]
		if v.keyEsc {
			var k string
			if err := json.Unmarshal(t.buf[v.key0-1:v.key1+1], &k); err != nil {
				return nil, false
			}
			out[k] = t.raw(m)
			continue
		}
		out[string(t.key(m))] = t.raw(m)
	}
	return out, true
}
