package parquet

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	pq "github.com/parquet-go/parquet-go"
)

// Bloom filters. A column chunk may carry a split-block bloom filter of its values (written
// when asked for: parquet.bloom.filter.enabled, Iceberg's write.parquet.bloom-filter-enabled). A
// row group whose filter holds none of an equality's or IN list's values has no row the filter
// above keeps, and is skipped, as Spark's Parquet reader skips it. A literal is looked up only
// where the column's values are the literal's own integer or bytes (no rescaling or unit
// conversion in between); a filter that cannot be read prunes nothing.

// bloomExcludesAny reports whether the bloom filters of row group i rule a predicate out.
func (r *Reader) bloomExcludesAny(i int) bool {
	for k := range r.preds {
		if r.bloomExcludes(i, &r.preds[k]) {
			return true
		}
	}
	return false
}

// bloomExcludes reports whether a predicate's bloom filter in row group i rules it out.
func (r *Reader) bloomExcludes(i int, p *predPlan) bool {
	if p.op != "=" && p.op != "in" {
		return false
	}
	rg := &r.meta.RowGroups[i]
	if p.leaf.index >= len(rg.Columns) || rg.Columns[p.leaf.index].MetaData.BloomFilterOffset <= 0 {
		return false
	}
	var vals []pq.Value
	for _, v := range p.values {
		if v == nil {
			continue // = NULL and IN (NULL) are never true
		}
		pv, exact, ok := bloomValue(p, v)
		if !ok {
			return false
		}
		if exact {
			vals = append(vals, pv)
		}
	}
	fc, ok := r.file.RowGroups()[i].ColumnChunks()[p.leaf.index].(*pq.FileColumnChunk)
	if !ok {
		return false
	}
	f, err := fc.BloomFilterFrom(r.file)
	if err != nil || f == nil {
		return false
	}
	for _, v := range vals {
		if in, err := f.Check(v); err != nil || in {
			return false
		}
	}
	return true
}

// bloomValue is the column's physical value that equals the literal v. ok is false when the
// literal cannot be looked up; exact is false when no value of the column can equal it (an int
// literal beyond an INT32 column's range), so that it needs no lookup.
func bloomValue(p *predPlan, v Value) (pv pq.Value, exact, ok bool) {
	switch p.cv {
	case cvI32, cvI32toI8, cvI32toI16, cvI32toI64:
		x, isInt := v.(int64)
		if !isInt {
			return pv, false, false
		}
		if x < math.MinInt32 || x > math.MaxInt32 {
			return pv, false, true
		}
		return pq.Int32Value(int32(x)), true, true
	case cvI64:
		x, isInt := v.(int64)
		if !isInt {
			return pv, false, false
		}
		return pq.Int64Value(x), true, true
	case cvBytes:
		switch x := v.(type) {
		case string:
			return pq.ByteArrayValue([]byte(x)), true, true
		case []byte:
			return pq.ByteArrayValue(x), true, true
		}
	case cvDecI32, cvDecI64:
		d, isDec := v.(decimal128.Num)
		if !isDec || p.up != 0 {
			return pv, false, false
		}
		x, fits := i64(d)
		if !fits {
			return pv, false, true
		}
		if p.cv == cvDecI64 {
			return pq.Int64Value(x), true, true
		}
		if x < math.MinInt32 || x > math.MaxInt32 {
			return pv, false, true
		}
		return pq.Int32Value(int32(x)), true, true
	}
	return pv, false, false
}

// i64 is d as an int64, when it fits.
func i64(d decimal128.Num) (int64, bool) {
	hi, lo := d.HighBits(), d.LowBits()
	if hi != int64(lo)>>63 {
		return 0, false
	}
	return int64(lo), true
}
