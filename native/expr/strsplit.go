package expr

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// The regular expression functions that return array<string>, over UTF8_BINARY strings with a
// literal pattern in the safe subset of regexsafe.go:
//   - StringSplit (split(str, regex[, limit])): UTF8String.split. An empty pattern splits a
//     non-empty string into its code points as numBytesForFirstByte walks the bytes (so invalid
//     UTF-8 is kept byte for byte), the last element holding the rest once limit-1 are taken;
//     otherwise Java's String.split(regex, limit) of the decoded string, limit 0 read as -1 (Spark
//     keeps trailing empty strings): a match at the very start gives a leading "", no match gives
//     the whole string, a positive limit caps the elements (the last holds the rest).
//   - RegExpExtractAll (regexp_extract_all(str, regex[, idx])): group idx of every match, "" when
//     the group did not take part; an idx outside [0, groups] raises Spark's
//     INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX on the first row with a match, as Spark checks it
//     per match.
// A pattern that can match the empty string is refused (Java's find loop and Go's differ on empty
// matches next to a previous match), as is the legacy split truncation
// (spark.sql.legacy.truncateForEmptyRegexSplit) for an empty split pattern. A pattern ending in
// Java's '$' matches at most once (nothing in it can match a line terminator), so its one match
// is found by regexProgram.find. Rows that are not valid UTF-8 are decoded first as Spark's
// UTF8String.toString does (one U+FFFD per malformed sequence) and the pieces come from that text.

func init() {
	RegisterNested("StringSplit", "split(str, regex[, limit]) with a literal regex in the safe subset (regexsafe.go) that cannot match '' (or is '': code points) and a literal limit: Java's String.split with limit 0 read as -1, as UTF8String.split", translateStringSplit)
	RegisterNested("RegExpExtractAll", "regexp_extract_all(str, regex[, idx]) with a literal regex in the safe subset (regexsafe.go) that cannot match '' and a literal idx: group idx of every match ('' if it did not take part); idx beyond the groups raises INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX on a row with a match", translateRegExpExtractAll)
}

const splitLegacyTruncateKey = "spark.sql.legacy.truncateForEmptyRegexSplit"

// splitFn is split or regexp_extract_all.
type splitFn struct {
	extractAll bool
	subject    Expr
	prog       *regexProgram // nil for split's empty pattern
	pattern    string
	isNull     bool  // a literal argument is null: every row is null
	limit      int32 // split
	idx        int   // regexp_extract_all
	typ        sparktype.Type
}

func (e *splitFn) Type() sparktype.Type { return e.typ }
func (e *splitFn) mayFail() bool        { return e.extractAll || mayFail(e.subject) }
func (e *splitFn) String() string {
	if e.extractAll {
		return fmt.Sprintf("regexp_extract_all(%s, %q, %d)", e.subject, e.pattern, e.idx)
	}
	return fmt.Sprintf("split(%s, %q, %d)", e.subject, e.pattern, e.limit)
}

// splitArrayType checks that pe returns array<string> of the default collation.
func splitArrayType(pe *plan.Expr) (sparktype.Type, error) {
	t, err := pe.Type()
	if err != nil {
		return t, err
	}
	if el, _ := t.Elem(); t.Kind != sparktype.Array || !binaryCollation(el) {
		return t, unsupported("%s returning %s is not supported natively (array<string> of UTF8_BINARY only)", plan.ShortClass(pe.Class), t)
	}
	return t, nil
}

// splitPattern reads and checks the literal pattern; empty is allowed only when emptyOK.
func splitPattern(pe *plan.Expr, conf *plan.Conf, field string, emptyOK bool) (prog *regexProgram, pat string, isNull bool, err error) {
	pat, isNull, err = regexStringArg(pe, field, conf, "pattern")
	if err != nil || isNull || (emptyOK && pat == "") {
		return nil, pat, isNull, err
	}
	if prog, err = compileRegex(pat); err != nil {
		return nil, pat, false, unsupported("%s: %v", plan.ShortClass(pe.Class), err)
	}
	if prog.info.nullable {
		return nil, pat, false, unsupported("%s: %v", plan.ShortClass(pe.Class), regexRefuse(pat, "a pattern that can match the empty string"))
	}
	return prog, pat, false, nil
}

func translateStringSplit(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := splitArrayType(pe)
	if err != nil {
		return nil, err
	}
	subj, err := stringChild(pe, "str", conf)
	if err != nil {
		return nil, err
	}
	prog, pat, patNull, err := splitPattern(pe, conf, "regex", true)
	if err != nil {
		return nil, err
	}
	limit, limNull, err := regexIntArg(pe, "limit", conf, "limit")
	if err != nil {
		return nil, err
	}
	if !patNull && pat == "" && conf != nil && conf.Settings[splitLegacyTruncateKey] == "true" {
		return nil, unsupported("split with an empty pattern under %s=true is not supported natively", splitLegacyTruncateKey)
	}
	return &splitFn{subject: subj, prog: prog, pattern: pat, isNull: patNull || limNull, limit: limit, typ: t}, nil
}

func translateRegExpExtractAll(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := splitArrayType(pe)
	if err != nil {
		return nil, err
	}
	subj, err := stringChild(pe, "subject", conf)
	if err != nil {
		return nil, err
	}
	prog, pat, patNull, err := splitPattern(pe, conf, "regexp", false)
	if err != nil {
		return nil, err
	}
	idx, idxNull, err := regexIntArg(pe, "idx", conf, "group index")
	if err != nil {
		return nil, err
	}
	return &splitFn{extractAll: true, subject: subj, prog: prog, pattern: pat, isNull: patNull || idxNull, idx: int(idx), typ: t}, nil
}

// splitListOut builds a list<string> column: the elements' bytes in tracked memory (grown as
// needed), their offsets, and each row's element range.
type splitListOut struct {
	dataBuf  *memory.Buffer
	data     []byte
	used     int
	elemOffs []int32 // element boundaries, starting with 0
	listOffs []int32 // row boundaries in elements
}

func splitNewListOut(alloc memory.Allocator, n int, capacity int) *splitListOut {
	o := &splitListOut{dataBuf: memory.NewResizableBuffer(alloc), elemOffs: make([]int32, 1, n+1), listOffs: make([]int32, n+1)}
	o.dataBuf.Reserve(max(capacity, 0))
	o.data = o.dataBuf.Buf()
	return o
}

// add appends one element.
func (o *splitListOut) add(b []byte) error {
	need := int64(o.used) + int64(len(b))
	if need > math.MaxInt32 {
		return fmt.Errorf("result exceeds %d bytes in one batch", math.MaxInt32)
	}
	if need > int64(len(o.data)) {
		o.dataBuf.Reserve(int(min(max(need, 2*int64(len(o.data))), math.MaxInt32)))
		o.data = o.dataBuf.Buf()
	}
	o.used += copy(o.data[o.used:], b)
	o.elemOffs = append(o.elemOffs, int32(o.used))
	return nil
}

// endRow ends row i with the elements added so far.
func (o *splitListOut) endRow(i int) { o.listOffs[i+1] = int32(len(o.elemOffs) - 1) }

func (o *splitListOut) release() { o.dataBuf.Release() }

// finish builds the column; it takes over vbuf.
func (o *splitListOut) finish(alloc memory.Allocator, typ sparktype.Type, n int, vbuf *memory.Buffer, nulls int) arrow.Array {
	el, _ := typ.Elem()
	m := len(o.elemOffs) - 1
	eoBuf, eo := newFixed[int32](alloc, m+1)
	copy(eo, o.elemOffs)
	o.dataBuf.Resize(o.used)
	elems := finishBytes(el.Arrow(), m, nil, 0, eoBuf, o.dataBuf)
	defer elems.Release()
	loBuf, lo := newFixed[int32](alloc, n+1)
	copy(lo, o.listOffs)
	if nulls == 0 && vbuf != nil {
		vbuf.Release()
		vbuf = nil
	}
	d := array.NewData(typ.Arrow(), n, []*memory.Buffer{vbuf, loBuf}, []arrow.ArrayData{elems.Data()}, nulls, 0)
	if vbuf != nil {
		vbuf.Release()
	}
	loBuf.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

func (e *splitFn) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

// evalMasked computes the rows named by active (nil: all); the others are empty arrays, and
// raise no error.
func (e *splitFn) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, err := evalOperandActive(ctx, b, e.subject, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	if n == 0 || e.isNull || so.nullScalar() {
		return allNull(ctx.Alloc, e.typ.Arrow(), n), nil
	}
	var vbuf *memory.Buffer
	nulls := 0
	if !so.scalar {
		vbuf, nulls = andValidity(ctx.Alloc, n, so.arr)
	}
	offs, data, lm := operandBytes(so)
	capacity := len(data)
	if so.scalar {
		capacity = int(min(int64(offs[1]-offs[0])*int64(n), math.MaxInt32))
	}
	out := splitNewListOut(ctx.Alloc, n, capacity)
	var scratch []byte
	var ms [][]int
	for i := 0; i < n; i++ {
		if !validRow(vbuf, i) || !isActive(active, i) {
			out.endRow(i)
			continue
		}
		j := i & lm
		s := data[offs[j]:offs[j+1]]
		if e.prog != nil && !utf8.Valid(s) {
			scratch = javaDecode(scratch[:0], s)
			s = scratch
		}
		switch {
		case e.extractAll:
			ms = e.matches(s, -1, ms[:0])
			if len(ms) > 0 && (e.idx < 0 || e.idx > e.prog.info.groups) {
				out.release()
				if vbuf != nil {
					vbuf.Release()
				}
				return nil, splitGroupIndexError(e.prog.info.groups, e.idx)
			}
			for _, m := range ms {
				var g []byte
				if m[2*e.idx] >= 0 {
					g = s[m[2*e.idx]:m[2*e.idx+1]]
				}
				if err = out.add(g); err != nil {
					break
				}
			}
		case e.prog == nil:
			err = splitCodePoints(s, e.limit, out)
		default:
			err = e.splitRegex(s, &ms, out)
		}
		if err != nil {
			out.release()
			if vbuf != nil {
				vbuf.Release()
			}
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		out.endRow(i)
	}
	return out.finish(ctx.Alloc, e.typ, n, vbuf, nulls), nil
}

// matches appends to dst the successive matches of the (non-nullable) pattern in s, at most max
// of them (max < 0: all).
func (e *splitFn) matches(s []byte, max int, dst [][]int) [][]int {
	if max == 0 {
		return dst
	}
	if e.prog.info.finalDollar {
		// Java's '$' ends every match at the end or before a final line terminator that the
		// pattern cannot match: there is at most one.
		if m := e.prog.find(s); m != nil {
			dst = append(dst, m)
		}
		return dst
	}
	return append(dst, e.prog.re.FindAllSubmatchIndex(s, max)...)
}

// splitRegex is Java's String.split(regex, limit) of s as UTF8String.split calls it (limit 0 as
// -1). The pattern never matches "", so every match ends after position 0.
func (e *splitFn) splitRegex(s []byte, ms *[][]int, out *splitListOut) error {
	limit := int(e.limit)
	if limit <= 0 {
		*ms = e.matches(s, -1, (*ms)[:0])
	} else {
		// The first limit-1 matches end elements; the last element is the rest.
		*ms = e.matches(s, limit-1, (*ms)[:0])
	}
	prev := 0
	for _, m := range *ms {
		if err := out.add(s[prev:m[0]]); err != nil {
			return err
		}
		prev = m[1]
	}
	return out.add(s[prev:])
}

// splitCodePoints is UTF8String.split of a non-empty string by the empty pattern: one element per
// code point as numBytesForFirstByte walks the bytes, the last holding the rest when limit (> 0)
// is below their count. An empty string gives [""] (Java's split of "" by "").
func splitCodePoints(s []byte, limit int32, out *splitListOut) error {
	if len(s) == 0 {
		return out.add(nil)
	}
	chars := 0
	for i := 0; i < len(s); i += int(utf8Width[s[i]]) {
		chars++
	}
	parts := chars
	if limit > 0 && int(limit) < chars {
		parts = int(limit)
	}
	pos := 0
	for k := 0; k < parts-1; k++ {
		w := int(utf8Width[s[pos]])
		if err := out.add(s[pos : pos+w]); err != nil {
			return err
		}
		pos += w
	}
	return out.add(s[pos:])
}

// splitGroupIndexError is Spark's error for a regexp_extract_all group index outside the
// pattern's groups (RegExpExtractBase.checkGroupIndex).
func splitGroupIndexError(groups, idx int) error {
	return &exec.SparkError{Class: "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", Exception: "illegal-argument",
		Params: map[string]string{"parameter": "`idx`", "functionName": "`regexp_extract_all`",
			"groupCount": fmt.Sprint(groups), "groupIndex": fmt.Sprint(idx)}}
}
