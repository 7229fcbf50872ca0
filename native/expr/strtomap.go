// str_to_map(text[, pairDelim[, keyValueDelim]]) (StringToMap) over UTF8_BINARY strings with
// literal delimiters. Spark splits the text with UTF8String.split(pairDelim, -1) (Java's
// String.split of the decoded text: both delimiters are regular expressions, trailing empty
// pieces kept), then each piece with split(keyValueDelim, 2): the key is the first part, the
// value the rest, or null when the delimiter does not occur. The pairs go through
// ArrayBasedMapBuilder: a repeated key raises DUPLICATED_MAP_KEY under
// spark.sql.mapKeyDedupPolicy=EXCEPTION (the default) and under LAST_WIN keeps the first key's
// position with the last value. Keys are never null (a split piece never is).
//
// The delimiters must be patterns of the safe regex subset (regexsafe.go) that cannot match the
// empty string; an empty delimiter (which splits into code points) and non-literal delimiters are
// refused, as are other dedup policies. Rows that are not valid UTF-8 are decoded first as
// UTF8String.toString does (one U+FFFD per malformed sequence), so pieces come from that text.
package expr

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("StringToMap", "str_to_map(text[, pairDelim[, keyValueDelim]]) with literal delimiters in the "+
		"safe regex subset (regexsafe.go) that cannot match '': Java's String.split as UTF8String.split; duplicate "+
		"keys follow spark.sql.mapKeyDedupPolicy", translateStringToMap)
}

type strToMap struct {
	text         Expr
	pair, kv     *regexProgram
	pairS, kvS   string
	isNull       bool // a delimiter is a null literal: every row is null
	lastWins     bool
	typ          sparktype.Type
	keyT, valueT arrow.DataType
}

func translateStringToMap(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	k, v, _ := t.KeyValue()
	if t.Kind != sparktype.Map || !binaryCollation(k) || !binaryCollation(v) {
		return nil, unsupported("str_to_map returning %s is not supported natively (UTF8_BINARY strings only)", t)
	}
	text, err := stringChild(pe, "text", conf)
	if err != nil {
		return nil, err
	}
	m := &strToMap{text: text, typ: t}
	for _, d := range []struct {
		field string
		prog  **regexProgram
		pat   *string
	}{{"pairDelim", &m.pair, &m.pairS}, {"keyValueDelim", &m.kv, &m.kvS}} {
		pat, isNull, err := regexStringArg(pe, d.field, conf, d.field)
		if err != nil {
			return nil, err
		}
		if isNull {
			m.isNull = true
			continue
		}
		if pat == "" {
			return nil, unsupported("str_to_map with an empty %s (a split into code points) is not supported natively", d.field)
		}
		prog, err := compileRegex(pat)
		if err != nil {
			return nil, unsupported("str_to_map: %v", err)
		}
		if prog.info.nullable {
			return nil, unsupported("str_to_map: %v", regexRefuse(pat, "a pattern that can match the empty string"))
		}
		if prog.info.finalDollar {
			// Java's '$' also matches before a final line terminator, Go's only at the end.
			return nil, unsupported("str_to_map: %v", regexRefuse(pat, "a pattern ending in '$'"))
		}
		*d.prog, *d.pat = prog, pat
	}
	policy := ""
	if conf != nil {
		policy = strings.ToUpper(strings.TrimSpace(conf.Settings[mapKeyDedupPolicyKey]))
	}
	switch policy {
	case "", "EXCEPTION":
	case "LAST_WIN":
		m.lastWins = true
	default:
		return nil, unsupported("str_to_map under %s=%s", mapKeyDedupPolicyKey, policy)
	}
	mt := t.Arrow().(*arrow.MapType)
	m.keyT, m.valueT = mt.KeyType(), mt.ItemType()
	return m, nil
}

func (m *strToMap) Type() sparktype.Type { return m.typ }

// mayFail: a duplicate key raises unless the last one wins.
func (m *strToMap) mayFail() bool { return !m.lastWins || mayFail(m.text) }
func (m *strToMap) String() string {
	return fmt.Sprintf("str_to_map(%s, %q, %q)", m.text, m.pairS, m.kvS)
}

func (m *strToMap) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return m.evalMasked(ctx, b, nil)
}

// strToMapEntry is one pair of a row: views of the row's (decoded) text.
type strToMapEntry struct {
	key, value []byte
	hasValue   bool
}

// strToMapOut accumulates the keys and values of a batch in Go memory; they are copied into the
// task's buffers once at the end.
type strToMapOut struct {
	kData, vData []byte
	kOffs, vOffs []int32
	vNull        []int // positions of null values
	rowOffs      []int32
}

func (o *strToMapOut) add(e strToMapEntry) error {
	if int64(len(o.kData))+int64(len(e.key)) > math.MaxInt32 || int64(len(o.vData))+int64(len(e.value)) > math.MaxInt32 {
		return fmt.Errorf("result exceeds %d bytes in one batch", math.MaxInt32)
	}
	o.kData = append(o.kData, e.key...)
	o.kOffs = append(o.kOffs, int32(len(o.kData)))
	if !e.hasValue {
		o.vNull = append(o.vNull, len(o.vOffs)-1)
	}
	o.vData = append(o.vData, e.value...)
	o.vOffs = append(o.vOffs, int32(len(o.vData)))
	return nil
}

func (m *strToMap) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	so, err := evalOperandActive(ctx, b, m.text, active)
	if err != nil {
		return nil, err
	}
	defer so.release()
	if n == 0 || m.isNull || so.nullScalar() {
		return allNull(ctx.Alloc, m.typ.Arrow(), n), nil
	}
	var vbuf *memory.Buffer
	nulls := 0
	if !so.scalar {
		vbuf, nulls = andValidity(ctx.Alloc, n, so.arr)
	}
	offs, data, lm := operandBytes(so)
	out := &strToMapOut{kOffs: []int32{0}, vOffs: []int32{0}, rowOffs: make([]int32, 1, n+1)}
	var scratch []byte
	var ms [][]int
	var entries []strToMapEntry
	index := map[string]int{}
	fail := func(err error) (arrow.Array, error) {
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		if !validRow(vbuf, i) || !isActive(active, i) {
			out.rowOffs = append(out.rowOffs, int32(len(out.kOffs)-1))
			continue
		}
		j := i & lm
		s := data[offs[j]:offs[j+1]]
		if !utf8.Valid(s) {
			scratch = javaDecode(scratch[:0], s)
			s = scratch
		}
		// Pieces: split(pairDelim, -1); each split(keyValueDelim, 2).
		entries = entries[:0]
		clear(index)
		ms = m.pair.re.FindAllIndex(s, -1)
		prev := 0
		for p := 0; p <= len(ms); p++ {
			end := len(s)
			if p < len(ms) {
				end = ms[p][0]
			}
			piece := s[prev:end]
			if p < len(ms) {
				prev = ms[p][1]
			}
			e := strToMapEntry{key: piece}
			if loc := m.kv.re.FindIndex(piece); loc != nil {
				e = strToMapEntry{key: piece[:loc[0]], value: piece[loc[1]:], hasValue: true}
			}
			var key string
			if len(e.key) > 0 {
				key = unsafe.String(&e.key[0], len(e.key)) // a view for this row's index only
			}
			if at, dup := index[key]; dup {
				if !m.lastWins {
					return fail(&exec.SparkError{Class: "DUPLICATED_MAP_KEY", Exception: "runtime",
						Params: map[string]string{"key": string(e.key), "mapKeyDedupPolicy": `"` + mapKeyDedupPolicyKey + `"`}})
				}
				entries[at].value, entries[at].hasValue = e.value, e.hasValue
				continue
			}
			if len(entries) >= arrMaxLength {
				return fail(&exec.SparkError{Class: "COLLECTION_SIZE_LIMIT_EXCEEDED.INITIALIZE", Exception: "runtime",
					Params: map[string]string{"numberOfElements": fmt.Sprint(len(entries)), "maxRoundedArrayLength": fmt.Sprint(arrMaxLength)}})
			}
			index[key] = len(entries)
			entries = append(entries, e)
		}
		for _, e := range entries {
			if err := out.add(e); err != nil {
				return fail(fmt.Errorf("%s: %w", m, err))
			}
		}
		out.rowOffs = append(out.rowOffs, int32(len(out.kOffs)-1))
	}
	return m.build(ctx.Alloc, out, n, vbuf, nulls), nil
}

// build lays the batch's entries out as a map column; it takes over vbuf.
func (m *strToMap) build(alloc memory.Allocator, o *strToMapOut, n int, vbuf *memory.Buffer, nulls int) arrow.Array {
	cnt := len(o.kOffs) - 1
	bytesCol := func(dt arrow.DataType, offs []int32, data []byte, nullAt []int) arrow.ArrayData {
		offBuf, ob := newFixed[int32](alloc, len(offs))
		copy(ob, offs)
		dataBuf := memory.NewResizableBuffer(alloc)
		dataBuf.Resize(len(data))
		copy(dataBuf.Bytes(), data)
		var nb *memory.Buffer
		if len(nullAt) > 0 {
			var bm []byte
			nb, bm = newBitmap(alloc, cnt)
			bitutil.SetBitsTo(bm, 0, int64(cnt), true)
			for _, k := range nullAt {
				bitutil.ClearBit(bm, k)
			}
		}
		a := finishBytes(dt, cnt, nb, len(nullAt), offBuf, dataBuf)
		d := a.Data()
		d.Retain()
		a.Release()
		return d
	}
	kd := bytesCol(m.keyT, o.kOffs, o.kData, nil)
	defer kd.Release()
	vd := bytesCol(m.valueT, o.vOffs, o.vData, o.vNull)
	defer vd.Release()
	mt := m.typ.Arrow().(*arrow.MapType)
	sd := array.NewData(mt.Elem(), cnt, []*memory.Buffer{nil}, []arrow.ArrayData{kd, vd}, 0, 0)
	defer sd.Release()
	offBuf, ob := newFixed[int32](alloc, n+1)
	copy(ob, o.rowOffs)
	if nulls == 0 && vbuf != nil {
		vbuf.Release()
		vbuf = nil
	}
	d := array.NewData(mt, n, []*memory.Buffer{vbuf, offBuf}, []arrow.ArrayData{sd}, nulls, 0)
	offBuf.Release()
	if vbuf != nil {
		vbuf.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}
