package expr

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// get_json_object and json_tuple as Spark 4.1 evaluates them (jsonExpressionEvaluators.scala):
// one Jackson token stream over the row (jsonscan.go) and Jackson's generators for the output
// (jsongen.go), so a result is null exactly where Jackson throws, and its text is byte for byte
// the generator's.
//
// get_json_object keeps Hive's JSONPath subset and its quirks, which are part of the answers:
//   - a path is '$' then .name, ['name'], [n], [*], .* or ['*']; a path that does not parse
//     gives null on every row; .* and ['*'] never match (Spark only tries them on a field name);
//   - a string matched directly is written without quotes (Raw), but inside a wildcard's
//     results it keeps its quotes;
//   - [*] returns its single match bare and several as an array (an element that wrote an
//     empty array without matching still leaves its "[]" in the text); [*][*] flattens one
//     level of arrays;
//   - the first field of a name that matches wins, a null value or a failed sub-path moves on
//     to the next field of that name;
//   - numbers are re-printed (1.10 -> 1.1, 1E2 -> 100.0), non-BMP chars inside quoted output
//     become escaped surrogate pairs.
// Only a literal path is native: Spark parses it once (a non-literal one per row). Refused: a
// path that is not valid UTF-8, and an index beyond a long (Spark fails the query).

func init() {
	Register("GetJsonObject", "get_json_object(json, path) with a literal path: Spark's Jackson evaluation ($, .name, ['name'], [n], [*]); null for invalid JSON or path", translateGetJSONObject)
}

type pathOp uint8

const (
	pathKey pathOp = iota
	pathSubscript
	pathWildcard
	pathIndex
	pathNamed
)

type pathInstr struct {
	op    pathOp
	index int64
	name  []byte
}

// parseJSONPath reads Spark's JsonPathParser grammar; ok is false when Spark's parse fails
// (null results). refuse names a path Spark fails the query on, or this reading may not match.
// The grammar is Scala's RegexParsers: its string and regex tokens skip whitespace (Java \s)
// before them, its single-char tokens do not, and the end of the path may follow whitespace.
// So a name keeps its inner and trailing spaces but not its leading ones, "$ .*" is a
// wildcard while "$ .a" does not parse, and "[ 1]" is an index while "[1 ]" does not parse.
func parseJSONPath(s string) (path []pathInstr, ok bool, refuse string) {
	if !utf8.ValidString(s) {
		return nil, false, "the path is not valid UTF-8"
	}
	if len(s) == 0 || s[0] != '$' {
		return nil, false, ""
	}
	skip := func(i int) int {
		for i < len(s) && isPathSpace(s[i]) {
			i++
		}
		return i
	}
	path = []pathInstr{}
	i := 1
	for i < len(s) {
		k := skip(i)
		rest := s[k:]
		switch {
		case strings.HasPrefix(rest, ".*"):
			path = append(path, pathInstr{op: pathWildcard})
			i = k + 2
			continue
		case strings.HasPrefix(rest, "['*']"):
			path = append(path, pathInstr{op: pathWildcard})
			i = k + 5
			continue
		case s[i] == '.':
			from := skip(i + 1)
			j := from
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j > from {
				path = append(path, pathInstr{op: pathKey}, pathInstr{op: pathNamed, name: []byte(s[from:j])})
				i = j
				continue
			}
		case strings.HasPrefix(rest, "['"):
			from := skip(k + 2)
			j := from
			for j < len(s) && s[j] != '\'' {
				j++
			}
			if j > from && strings.HasPrefix(s[j:], "']") {
				path = append(path, pathInstr{op: pathKey}, pathInstr{op: pathNamed, name: []byte(s[from:j])})
				i = j + 2
				continue
			}
		}
		// A subscript: '[' then '*' or digits (after optional whitespace), then ']' at once.
		if s[i] != '[' {
			break
		}
		if strings.HasPrefix(s[i:], "[*]") {
			path = append(path, pathInstr{op: pathSubscript}, pathInstr{op: pathWildcard})
			i += 3
			continue
		}
		from := skip(i + 1)
		j := from
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == from || j >= len(s) || s[j] != ']' {
			break
		}
		n, err := strconv.ParseInt(s[from:j], 10, 64)
		if err != nil {
			return nil, false, "the path has an array index beyond a long (Spark fails the query)"
		}
		path = append(path, pathInstr{op: pathSubscript}, pathInstr{op: pathIndex, index: n})
		i = j + 1
	}
	if skip(i) != len(s) {
		return nil, false, ""
	}
	return path, true, ""
}

// isPathSpace is Java's \s.
func isPathSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

type writeStyle uint8

const (
	styleRaw writeStyle = iota
	styleQuoted
	styleFlatten
)

// jsonPathEval evaluates one path over rows, reusing its scanner and generators.
type jsonPathEval struct {
	path  []pathInstr
	p     jsonScanner
	g     jsonGen
	spare []*jsonGen // generators for wildcard buffers, by nesting
	used  int
	ver   int
}

// eval returns the result of the row's JSON text, ok false for null.
func (ev *jsonPathEval) eval(in []byte) (out []byte, ok bool) {
	ev.p.reset(in)
	ev.g.reset(true, ev.ver)
	ev.used = 0
	if err := ev.p.next(); err != nil {
		return nil, false
	}
	matched, err := ev.walk(&ev.g, styleRaw, ev.path)
	if err != nil || !matched {
		return nil, false
	}
	return ev.g.buf, true
}

func isPrefix(path []pathInstr, ops ...pathOp) bool {
	if len(path) < len(ops) {
		return false
	}
	for i, o := range ops {
		if path[i].op != o {
			return false
		}
	}
	return true
}

// walk is the evaluatePath recursion: it reports whether anything matched (was written).
func (ev *jsonPathEval) walk(g *jsonGen, style writeStyle, path []pathInstr) (bool, error) {
	p := &ev.p
	tok := p.tok
	switch {
	case tok == tokString && len(path) == 0 && style == styleRaw:
		t, err := p.stringText()
		if err != nil {
			return false, err
		}
		return true, g.raw(t)
	case tok == tokStartArray && len(path) == 0 && style == styleFlatten:
		dirty := false
		for {
			if err := p.next(); err != nil {
				return false, err
			}
			if p.tok == tokEndArray {
				return dirty, nil
			}
			d, err := ev.walk(g, style, nil)
			if err != nil {
				return false, err
			}
			dirty = dirty || d
		}
	case len(path) == 0:
		return true, g.copyCurrent(p)
	case tok == tokStartObject && path[0].op == pathKey:
		dirty := false
		for {
			if err := p.next(); err != nil {
				return false, err
			}
			if p.tok == tokEndObject {
				return dirty, nil
			}
			var err error
			if dirty {
				err = p.skipChildren()
			} else {
				dirty, err = ev.walk(g, style, path[1:])
			}
			if err != nil {
				return false, err
			}
		}
	case tok == tokStartArray && isPrefix(path, pathSubscript, pathWildcard, pathSubscript, pathWildcard):
		g.startArray()
		dirty, err := ev.eachElement(g, styleFlatten, path[4:])
		g.end(']')
		return dirty, err
	case tok == tokStartArray && isPrefix(path, pathSubscript, pathWildcard) && style != styleQuoted:
		next := styleQuoted
		if style == styleFlatten {
			next = styleFlatten
		}
		buf := ev.bufferGen()
		buf.startArray()
		count := 0
		for {
			if err := p.next(); err != nil {
				return false, err
			}
			if p.tok == tokEndArray {
				break
			}
			d, err := ev.walk(buf, next, path[2:])
			if err != nil {
				return false, err
			}
			if d {
				count++
			}
		}
		buf.end(']')
		ev.used--
		switch {
		case count > 1:
			return true, g.rawValue(buf.buf)
		case count == 1:
			return true, g.rawValue(buf.buf[1 : len(buf.buf)-1])
		}
		return false, nil
	case tok == tokStartArray && isPrefix(path, pathSubscript, pathWildcard):
		g.startArray()
		dirty, err := ev.eachElement(g, styleQuoted, path[2:])
		g.end(']')
		return dirty, err
	case tok == tokStartArray && isPrefix(path, pathSubscript, pathIndex):
		rest := path[2:]
		if isPrefix(rest, pathSubscript, pathWildcard) {
			style = styleQuoted
		}
		if err := p.next(); err != nil {
			return false, err
		}
		for idx := path[1].index; ; idx-- {
			if p.tok == tokEndArray {
				return false, nil
			}
			if idx == 0 {
				dirty, err := ev.walk(g, style, rest)
				if err != nil {
					return false, err
				}
				for {
					if err := p.next(); err != nil {
						return false, err
					}
					if p.tok == tokEndArray {
						return dirty, nil
					}
					if err := p.skipChildren(); err != nil {
						return false, err
					}
				}
			}
			if err := p.skipChildren(); err != nil {
				return false, err
			}
			if err := p.next(); err != nil {
				return false, err
			}
		}
	case tok == tokFieldName && path[0].op == pathNamed && string(p.text) == string(path[0].name):
		if err := p.next(); err != nil {
			return false, err
		}
		if p.tok == tokNull {
			return false, nil
		}
		return ev.walk(g, style, path[1:])
	case tok == tokFieldName && path[0].op == pathWildcard:
		if err := p.next(); err != nil {
			return false, err
		}
		return ev.walk(g, style, path[1:])
	}
	return false, p.skipChildren()
}

// eachElement walks every element of the current array, reporting whether any matched.
func (ev *jsonPathEval) eachElement(g *jsonGen, style writeStyle, path []pathInstr) (bool, error) {
	dirty := false
	for {
		if err := ev.p.next(); err != nil {
			return false, err
		}
		if ev.p.tok == tokEndArray {
			return dirty, nil
		}
		d, err := ev.walk(g, style, path)
		if err != nil {
			return false, err
		}
		dirty = dirty || d
	}
}

// bufferGen hands out a Writer-based generator for one wildcard level (released by used--).
func (ev *jsonPathEval) bufferGen() *jsonGen {
	if ev.used == len(ev.spare) {
		ev.spare = append(ev.spare, &jsonGen{})
	}
	g := ev.spare[ev.used]
	ev.used++
	g.reset(false, ev.ver)
	return g
}

// ---- GetJsonObject ----

type getJSONObject struct {
	json    Expr
	pathStr string
	path    []pathInstr
	valid   bool      // the path parsed (else every row is null)
	evals   sync.Pool // *jsonPathEval, keeping their buffers across batches
}

func (e *getJSONObject) Type() sparktype.Type { return sparktype.StringType }
func (e *getJSONObject) mayFail() bool        { return mayFail(e.json) }
func (e *getJSONObject) String() string {
	return fmt.Sprintf("get_json_object(%s, %q)", e.json, e.pathStr)
}

func translateGetJSONObject(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	if why := javaToStringUnknown(); why != "" {
		return nil, unsupported("GetJsonObject: %s", why)
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if !binaryCollation(t) {
		return nil, unsupported("GetJsonObject returning %s is not supported natively (UTF8_BINARY strings only)", t)
	}
	j, err := stringChild(pe, "json", conf)
	if err != nil {
		return nil, err
	}
	text, isNull, err := patternLiteral(pe, "path", conf)
	if err != nil {
		return nil, err
	}
	e := &getJSONObject{json: j, pathStr: text}
	if isNull {
		return e, nil
	}
	path, ok, refuse := parseJSONPath(text)
	if refuse != "" {
		return nil, unsupported("GetJsonObject with path %q is not supported natively: %s", text, refuse)
	}
	e.path, e.valid = path, ok
	return e, nil
}

func (e *getJSONObject) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	n := b.NumRows
	if !e.valid {
		return allNull(ctx.Alloc, arrow.BinaryTypes.String, n), nil
	}
	o, err := evalOperand(ctx, b, e.json)
	if err != nil {
		return nil, err
	}
	defer o.release()
	if o.nullScalar() || n == 0 {
		return allNull(ctx.Alloc, arrow.BinaryTypes.String, n), nil
	}
	offs, data, m := operandBytes(o)
	ev, _ := e.evals.Get().(*jsonPathEval)
	if ev == nil {
		ev = &jsonPathEval{path: e.path}
	}
	ev.ver = JavaVersion()
	defer func() {
		ev.p.in = nil // the batch's bytes are not ours to keep
		e.evals.Put(ev)
	}()
	bld := array.NewStringBuilder(ctx.Alloc)
	defer bld.Release()
	bld.Reserve(n)
	bld.ReserveData(len(data[offs[0]:offs[len(offs)-1]]) / 2)
	if o.scalar {
		// A constant document: one evaluation for the batch.
		if isNullAt(o.arr, 0) {
			return allNull(ctx.Alloc, arrow.BinaryTypes.String, n), nil
		}
		out, ok := ev.eval(data[offs[0]:offs[1]])
		for i := 0; i < n; i++ {
			if ok {
				bld.BinaryBuilder.Append(out)
			} else {
				bld.AppendNull()
			}
		}
		return bld.NewArray(), nil
	}
	bm, boff := validity(o.arr)
	for i := 0; i < n; i++ {
		j := i & m
		if bm != nil && bm[(boff+i)>>3]&(1<<((boff+i)&7)) == 0 {
			bld.AppendNull()
			continue
		}
		if out, ok := ev.eval(data[offs[j]:offs[j+1]]); ok {
			bld.BinaryBuilder.Append(out)
		} else {
			bld.AppendNull()
		}
	}
	return bld.NewArray(), nil
}

// ---- JsonTuple ----

// jsonTupleField is field k of json_tuple(json, name1, ..., nameN) as JsonTupleEvaluator
// computes it: the document must be an object; every field whose name is requested and whose
// value is not null is copied (a string without quotes), a later field of the same name
// replacing an earlier one; any Jackson error, while reading the rest of the object or while
// copying any requested value (an unpaired surrogate written raw), makes the whole row null.
// BolideGenerate evaluates the fields one after the other over the same batch: the fields share
// one scan of each document, the first field asked for a batch computing every column and each
// field then taking its own.
type jsonTupleField struct {
	shared *jsonTupleShared
	k      int
}

type jsonTupleShared struct {
	json  Expr
	names [][]byte // nil for a null name
	mu    sync.Mutex
	batch *columnar.Batch
	cols  []arrow.Array // computed for batch, not yet taken
}

func (e *jsonTupleField) Type() sparktype.Type { return sparktype.StringType }
func (e *jsonTupleField) mayFail() bool        { return mayFail(e.shared.json) }
func (e *jsonTupleField) String() string {
	return fmt.Sprintf("json_tuple(%s, %q)", e.shared.json, e.shared.names[e.k])
}

// JSONTupleFields translates json_tuple's arguments (the JSON document then literal field
// names) into one string expression per output column.
func JSONTupleFields(args []*plan.Expr, conf *plan.Conf) ([]Expr, error) {
	if len(args) < 2 {
		return nil, unsupported("json_tuple with %d arguments", len(args))
	}
	if why := javaToStringUnknown(); why != "" {
		return nil, unsupported("json_tuple: %s", why)
	}
	j, err := Translate(args[0], conf)
	if err != nil {
		return nil, err
	}
	if !binaryCollation(j.Type()) {
		return nil, unsupported("json_tuple of %s is not supported natively (UTF8_BINARY strings only)", j.Type())
	}
	names := make([][]byte, len(args)-1)
	for i, a := range args[1:] {
		x, err := Translate(a, conf)
		if err != nil {
			return nil, err
		}
		lit, ok := x.(*Literal)
		if !ok {
			return nil, unsupported("json_tuple with a non-literal field name (%s) is not supported natively", x)
		}
		if lit.IsNull() {
			continue
		}
		if !binaryCollation(lit.Type()) {
			return nil, unsupported("json_tuple with a field name of type %s is not supported natively", lit.Type())
		}
		offs, data := binaryParts(lit.constArray())
		name := append([]byte{}, data[offs[0]:offs[1]]...)
		if !utf8.Valid(name) {
			return nil, unsupported("json_tuple with a field name that is not valid UTF-8 is not supported natively")
		}
		names[i] = name
	}
	sh := &jsonTupleShared{json: j, names: names, cols: make([]arrow.Array, len(names))}
	out := make([]Expr, len(names))
	for k := range names {
		out[k] = &jsonTupleField{shared: sh, k: k}
	}
	return out, nil
}

// requested reports whether a field name is one of names.
func requested(names [][]byte, name []byte) bool {
	for _, n := range names {
		if n != nil && string(n) == string(name) {
			return true
		}
	}
	return false
}

func (e *jsonTupleField) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	sh := e.shared
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.batch != b || sh.cols[e.k] == nil {
		sh.drop()
		if err := sh.compute(ctx, b); err != nil {
			return nil, err
		}
		sh.batch = b
	}
	a := sh.cols[e.k]
	sh.cols[e.k] = nil
	if sh.pending() == 0 {
		sh.batch = nil
	}
	return a, nil
}

// drop releases the columns no field took.
func (sh *jsonTupleShared) drop() {
	for i, a := range sh.cols {
		if a != nil {
			a.Release()
			sh.cols[i] = nil
		}
	}
	sh.batch = nil
}

func (sh *jsonTupleShared) pending() int {
	n := 0
	for _, a := range sh.cols {
		if a != nil {
			n++
		}
	}
	return n
}

// compute fills sh.cols with every field's column over b.
func (sh *jsonTupleShared) compute(ctx *exec.TaskContext, b *columnar.Batch) error {
	n := b.NumRows
	dt := arrow.BinaryTypes.String
	o, err := evalOperand(ctx, b, sh.json)
	if err != nil {
		return err
	}
	defer o.release()
	if o.nullScalar() || n == 0 {
		for k := range sh.cols {
			sh.cols[k] = allNull(ctx.Alloc, dt, n)
		}
		return nil
	}
	bld := make([]*array.StringBuilder, len(sh.names))
	for k := range bld {
		bld[k] = array.NewStringBuilder(ctx.Alloc)
		defer bld[k].Release()
		bld[k].Reserve(n)
	}
	offs, data, m := operandBytes(o)
	var p jsonScanner
	var g jsonGen
	vals := make([][]byte, len(sh.names))
	bm, boff := validity(o.arr)
	for i := 0; i < n; i++ {
		j := i & m
		ok := !(!o.scalar && bm != nil && bm[(boff+i)>>3]&(1<<((boff+i)&7)) == 0)
		if ok {
			ok = tupleRow(&p, &g, sh.names, vals, data[offs[j]:offs[j+1]])
		}
		for k, bd := range bld {
			if ok && vals[k] != nil {
				bd.BinaryBuilder.Append(vals[k])
			} else {
				bd.AppendNull()
			}
		}
	}
	for k, bd := range bld {
		sh.cols[k] = bd.NewArray()
	}
	return nil
}

// tupleRow scans one document, setting vals[k] to field k's text (nil for null; the slices
// point into g's buffer, valid until the next row); ok is false when the whole row is null.
func tupleRow(p *jsonScanner, g *jsonGen, names, vals [][]byte, in []byte) (ok bool) {
	clear(vals)
	p.reset(in)
	g.reset(true, JavaVersion())
	if p.next() != nil || p.tok != tokStartObject {
		return false
	}
	// Values are appended to g.buf; vals hold [start, end) positions until the end.
	type span struct{ from, to int }
	var spans [8]span
	pos := spans[:0]
	for range names {
		pos = append(pos, span{-1, -1})
	}
	for {
		if p.next() != nil {
			return false
		}
		if p.tok == tokEndObject {
			break
		}
		if p.tok != tokFieldName {
			if p.skipChildren() != nil {
				return false
			}
			continue
		}
		if !requested(names, p.text) {
			continue
		}
		name := p.text
		first := -1
		for k, nm := range names {
			if nm != nil && string(nm) == string(name) {
				first = k
				break
			}
		}
		if p.next() != nil {
			return false
		}
		if p.tok == tokNull {
			continue
		}
		from := len(g.buf)
		if p.tok == tokString {
			t, err := p.stringText()
			if err != nil || hasSurrogate(t) {
				return false
			}
			g.buf = append(g.buf, t...)
		} else {
			g.ctx = append(g.ctx[:0], genCtx{})
			if g.copyCurrent(p) != nil {
				return false
			}
		}
		for k := first; k < len(names); k++ {
			if names[k] != nil && string(names[k]) == string(names[first]) {
				pos[k] = span{from, len(g.buf)}
			}
		}
	}
	for k, s := range pos {
		if s.from >= 0 {
			vals[k] = g.buf[s.from:s.to]
		}
	}
	return true
}
