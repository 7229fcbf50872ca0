package parquet

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// domain is how a column's statistics compare.
type domain uint8

const (
	domNone    domain = iota // statistics are not usable for comparisons
	domInt                   // signed 64-bit (booleans as 0/1, dates, timestamps in micros, unsigned <= 32 bits)
	domFloat                 // float64, NaN disables pruning
	domBytes                 // unsigned bytewise (strings, binary)
	domDecimal               // decimal128 unscaled at the file's scale
)

type predPlan struct {
	op     string
	values []Value
	leaf   *leafInfo
	dom    domain
	cv     conv  // how the column's values become Spark values
	up     int32 // decimal widening
}

// planPredicates resolves the filter columns. A predicate that cannot be evaluated on statistics
// (unknown op, nested or absent column, ambiguous name) is dropped: it keeps every row group.
// Literals are Spark values of the column's requested type (cols), and statistics are compared
// after the same conversion as the values; a conversion that does not preserve order and value
// (narrowing to byte/short) or that is not mirrored here leaves only the null-count checks.
// With field ids, a predicate names a requested column, whose id finds the file's column.
func planPredicates(s *fileSchema, filters []Predicate, cols []sparktype.Field, caseSensitive bool, ids []int32) ([]predPlan, error) {
	var out []predPlan
	for _, f := range filters {
		switch f.Op {
		case "=", "<", "<=", ">", ">=", "isnull", "isnotnull", "in":
		default:
			continue
		}
		var field *sparktype.Field
		col := -1
		for i := range cols {
			if sameName(cols[i].Name, f.Column, caseSensitive) {
				field, col = &cols[i], i
				break
			}
		}
		if field == nil {
			continue
		}
		var t *topField
		var ok bool
		var err error
		if ids != nil {
			t, ok, err = lookupID(s, ids[col])
		} else {
			t, ok, err = lookupTop(s, f.Column, caseSensitive)
		}
		if err != nil || !ok || t.leaf == nil {
			continue
		}
		cv, up, ok := conversion(t.leaf, field.Type)
		if !ok {
			continue
		}
		dom := statsDomain(t.leaf)
		switch cv {
		case cvDecI32, cvDecI64:
			// Integers read as decimals compare as decimals (statistics scaled like the values).
			dom = domDecimal
		case cvBool, cvI32, cvI32toI64, cvU32toI64, cvI64, cvI64Millis, cvF32, cvF32toF64, cvF64,
			cvDecFLBA, cvDecBA, cvBytes, cvFLBABytes:
		default:
			dom = domNone
		}
		out = append(out, predPlan{op: f.Op, values: f.Values, leaf: t.leaf, dom: dom, cv: cv, up: up})
	}
	return out, nil
}

func statsDomain(l *leafInfo) domain {
	switch l.phys {
	case format.Boolean:
		return domInt
	case format.Int32:
		switch l.logical {
		case lDecimal:
			return domDecimal
		case lNone, lInt, lDate:
			return domInt
		}
	case format.Int64:
		switch l.logical {
		case lDecimal:
			return domDecimal
		case lNone:
			return domInt
		case lInt:
			if l.signed {
				return domInt
			}
		case lTimestamp:
			if l.unit != unitNanos {
				return domInt
			}
		}
	case format.Float, format.Double:
		if l.logical == lNone {
			return domFloat
		}
	case format.ByteArray, format.FixedLenByteArray:
		switch l.logical {
		case lDecimal:
			return domDecimal
		case lNone, lString:
			return domBytes
		}
	}
	return domNone
}

// bound is one decoded statistic or predicate literal.
type bound struct {
	i int64
	f float64
	b []byte
	d decimal128.Num
}

func keepRowGroup(preds []predPlan, rg *format.RowGroup) bool {
	for i := range preds {
		if !keepByPredicate(&preds[i], rg) {
			return false
		}
	}
	return true
}

func keepByPredicate(p *predPlan, rg *format.RowGroup) bool {
	if p.leaf.index >= len(rg.Columns) {
		return true
	}
	md := &rg.Columns[p.leaf.index].MetaData
	st := &md.Statistics
	hasMinMax := len(st.MinValue) > 0 || len(st.MaxValue) > 0 || len(st.Min) > 0 || len(st.Max) > 0
	// NullCount carries no "is set" bit once decoded; it is trusted as zero only when the writer
	// also wrote min/max (every writer that writes min/max writes the null count).
	allNull := st.NullCount > 0 && st.NullCount >= md.NumValues
	return keepStats(p, st, allNull, hasMinMax)
}

// keepStats reports whether rows with these statistics (a column chunk's, or a page's from the
// column index) may satisfy the predicate: allNull says every value is null, nullsKnown that
// st.NullCount is the real null count.
func keepStats(p *predPlan, st *format.Statistics, allNull, nullsKnown bool) bool {
	switch p.op {
	case "isnull":
		if p.leaf.maxDef == 0 {
			return false // a required column has no nulls
		}
		return !(nullsKnown && st.NullCount == 0)
	case "isnotnull":
		return !allNull
	}
	if allNull {
		return false // comparisons with null are never true
	}
	if p.dom == domNone {
		return true
	}
	lo, hi, ok := minMax(p, st)
	if !ok {
		return true
	}
	switch p.op {
	case "in":
		for _, v := range p.values {
			if v == nil {
				continue
			}
			x, ok := literal(p.leaf, p.dom, v)
			if !ok {
				return true
			}
			if cmp(p.dom, lo, x) <= 0 && cmp(p.dom, x, hi) <= 0 {
				return true
			}
		}
		return false
	}
	if len(p.values) != 1 || p.values[0] == nil {
		return true
	}
	x, ok := literal(p.leaf, p.dom, p.values[0])
	if !ok {
		return true
	}
	switch p.op {
	case "=":
		return cmp(p.dom, lo, x) <= 0 && cmp(p.dom, x, hi) <= 0
	case "<":
		return cmp(p.dom, lo, x) < 0
	case "<=":
		return cmp(p.dom, lo, x) <= 0
	case ">":
		return cmp(p.dom, hi, x) > 0
	case ">=":
		return cmp(p.dom, hi, x) >= 0
	}
	return true
}

func cmp(d domain, a, b bound) int {
	switch d {
	case domInt:
		return cmpOrdered(a.i, b.i)
	case domFloat:
		return cmpOrdered(a.f, b.f)
	case domBytes:
		return bytes.Compare(a.b, b.b)
	case domDecimal:
		return a.d.Cmp(b.d)
	}
	return 0
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// minMax decodes the column chunk's min and max. min_value/max_value (in the column's sort
// order) are preferred; the deprecated min/max (signed order) are used only where signed order
// is the right order.
func minMax(p *predPlan, st *format.Statistics) (lo, hi bound, ok bool) {
	l, d := p.leaf, p.dom
	mn, mx := st.MinValue, st.MaxValue
	if len(mn) == 0 && len(mx) == 0 || d == domBytes && len(mx) == 0 {
		if !deprecatedStatsUsable(l, d) {
			return lo, hi, false
		}
		mn, mx = st.Min, st.Max
	}
	if d == domBytes {
		if len(mx) == 0 {
			return lo, hi, false
		}
		// An empty min is the empty string, which is the least value anyway.
		return bound{b: mn}, bound{b: mx}, true
	}
	lo, ok1 := statValue(p, mn)
	hi, ok2 := statValue(p, mx)
	if !ok1 || !ok2 {
		return lo, hi, false
	}
	if d == domFloat && (math.IsNaN(lo.f) || math.IsNaN(hi.f)) {
		return lo, hi, false
	}
	if cmp(d, lo, hi) > 0 {
		return lo, hi, false
	}
	return lo, hi, true
}

func deprecatedStatsUsable(l *leafInfo, d domain) bool {
	switch l.phys {
	case format.Boolean, format.Float, format.Double:
		return true
	case format.Int32, format.Int64:
		return d != domNone && !l.unsigned()
	}
	return false
}

// statValue decodes one statistic as the Spark value it stands for (after the column's
// conversion: millisecond timestamps in microseconds, decimals at the requested scale).
func statValue(p *predPlan, b []byte) (bound, bool) {
	l, d := p.leaf, p.dom
	bd, ok := rawStatValue(l, d, p.cv, b)
	if ok && d == domDecimal && p.up > 0 {
		bd.d = bd.d.Mul(pow10[p.up])
	}
	return bd, ok
}

func rawStatValue(l *leafInfo, d domain, cv conv, b []byte) (bound, bool) {
	switch l.phys {
	case format.Boolean:
		if len(b) != 1 {
			return bound{}, false
		}
		return bound{i: int64(b[0] & 1)}, true
	case format.Int32:
		if len(b) != 4 {
			return bound{}, false
		}
		u := binary.LittleEndian.Uint32(b)
		v := int64(int32(u))
		if l.unsigned() {
			v = int64(u)
		}
		if d == domDecimal {
			return bound{d: decimal128.FromI64(v)}, true
		}
		return bound{i: v}, true
	case format.Int64:
		if len(b) != 8 {
			return bound{}, false
		}
		v := int64(binary.LittleEndian.Uint64(b))
		if d == domDecimal {
			return bound{d: decimal128.FromI64(v)}, true
		}
		if cv == cvI64Millis {
			if v > maxMillis || v < -maxMillis {
				return bound{}, false
			}
			v *= 1000
		}
		return bound{i: v}, true
	case format.Float:
		if len(b) != 4 {
			return bound{}, false
		}
		return bound{f: float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))}, true
	case format.Double:
		if len(b) != 8 {
			return bound{}, false
		}
		return bound{f: math.Float64frombits(binary.LittleEndian.Uint64(b))}, true
	case format.ByteArray, format.FixedLenByteArray:
		if d == domDecimal {
			if len(b) == 0 {
				return bound{}, false
			}
			x, ok := decimalFromBE(b)
			return bound{d: x}, ok
		}
	}
	return bound{}, false
}

// literal converts a predicate value to the column's domain; ok is false when the value's type
// does not fit (the predicate then keeps the row group).
func literal(l *leafInfo, d domain, v Value) (bound, bool) {
	switch d {
	case domInt:
		switch x := v.(type) {
		case int64:
			if l.phys == format.Boolean {
				return bound{}, false
			}
			return bound{i: x}, true
		case bool:
			if l.phys != format.Boolean {
				return bound{}, false
			}
			if x {
				return bound{i: 1}, true
			}
			return bound{i: 0}, true
		}
	case domFloat:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		default:
			return bound{}, false
		}
		if math.IsNaN(f) {
			return bound{}, false
		}
		return bound{f: f}, true
	case domBytes:
		switch x := v.(type) {
		case string:
			return bound{b: []byte(x)}, true
		case []byte:
			return bound{b: x}, true
		}
	case domDecimal:
		if x, ok := v.(decimal128.Num); ok {
			return bound{d: x}, true
		}
	}
	return bound{}, false
}
