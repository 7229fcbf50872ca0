package parquet

import (
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Page pruning. A file written with a page index (parquet-mr and arrow write one by default)
// holds, per column chunk, each page's min, max and null count (the column index) and each
// page's first row (the offset index). Where the pushed-down predicates rule out every row of a
// column's page, the rows of that page are skipped in every column: the reader moves past them
// without returning them, and the columns' pages that hold only such rows are never
// decompressed (see cursor.skip). As with row groups, this only drops rows the filter above the
// scan drops anyway (Spark's Parquet reader does the same with the same indexes).
//
// A page index that cannot be read or does not add up is ignored: it prunes nothing.

// rowRange is the rows [from, to) of a row group.
type rowRange struct{ from, to int64 }

// pageRanges returns the rows of row group i that the predicates' page indexes do not rule out,
// increasing and disjoint; all is true when none is ruled out.
func (r *Reader) pageRanges(i int) (ranges []rowRange, all bool) {
	rg := &r.meta.RowGroups[i]
	all = true
	indexes := map[int]*pageIndex{}
	for k := range r.preds {
		p := &r.preds[k]
		if p.leaf.index >= len(rg.Columns) {
			continue
		}
		pi, seen := indexes[p.leaf.index]
		if !seen {
			pi = r.readPageIndex(&rg.Columns[p.leaf.index], rg.NumRows)
			indexes[p.leaf.index] = pi
		}
		if pi == nil {
			continue
		}
		kept := pi.keep(p)
		if all {
			ranges, all = kept, false
		} else {
			ranges = intersectRanges(ranges, kept)
		}
	}
	return ranges, all
}

// pageIndex is one column chunk's page index.
type pageIndex struct {
	ci    format.ColumnIndex
	first []int64 // each page's first row, then the row group's row count
}

// keep returns the rows of the pages whose statistics do not rule the predicate out.
func (pi *pageIndex) keep(p *predPlan) []rowRange {
	var out []rowRange
	nullsKnown := len(pi.ci.NullCounts) == len(pi.ci.NullPages)
	for k := range pi.ci.NullPages {
		st := format.Statistics{MinValue: pi.ci.MinValues[k], MaxValue: pi.ci.MaxValues[k]}
		if nullsKnown {
			st.NullCount = pi.ci.NullCounts[k]
		}
		if !keepStats(p, &st, pi.ci.NullPages[k], nullsKnown) {
			continue
		}
		from, to := pi.first[k], pi.first[k+1]
		if n := len(out); n > 0 && out[n-1].to == from {
			out[n-1].to = to
		} else if to > from {
			out = append(out, rowRange{from, to})
		}
	}
	return out
}

// readPageIndex reads a column chunk's column and offset indexes; nil when it has none, or
// they cannot be read or do not add up.
func (r *Reader) readPageIndex(cc *format.ColumnChunk, rows int64) *pageIndex {
	if cc.ColumnIndexLength <= 0 || cc.OffsetIndexLength <= 0 || cc.ColumnIndexOffset <= 0 || cc.OffsetIndexOffset <= 0 {
		return nil
	}
	size := r.file.Size()
	if cc.ColumnIndexOffset+int64(cc.ColumnIndexLength) > size || cc.OffsetIndexOffset+int64(cc.OffsetIndexLength) > size {
		return nil
	}
	pi := &pageIndex{}
	var oi format.OffsetIndex
	if err := r.readThrift(cc.ColumnIndexOffset, cc.ColumnIndexLength, &pi.ci); err != nil {
		return nil
	}
	if err := r.readThrift(cc.OffsetIndexOffset, cc.OffsetIndexLength, &oi); err != nil {
		return nil
	}
	n := len(oi.PageLocations)
	if n == 0 || len(pi.ci.NullPages) != n || len(pi.ci.MinValues) != n || len(pi.ci.MaxValues) != n {
		return nil
	}
	pi.first = make([]int64, n+1)
	for k, loc := range oi.PageLocations {
		if loc.FirstRowIndex < 0 || loc.FirstRowIndex > rows || k > 0 && loc.FirstRowIndex < pi.first[k-1] ||
			k == 0 && loc.FirstRowIndex != 0 {
			return nil
		}
		pi.first[k] = loc.FirstRowIndex
	}
	pi.first[n] = rows
	return pi
}

func (r *Reader) readThrift(off int64, n int32, v any) error {
	buf := make([]byte, n)
	if m, err := r.file.ReadAt(buf, off); m < len(buf) {
		return fmt.Errorf("read %d bytes at %d: %v", n, off, err)
	}
	return thrift.Unmarshal(&thrift.CompactProtocol{}, buf, v)
}

// intersectRanges returns the rows in both a and b (each increasing and disjoint).
func intersectRanges(a, b []rowRange) []rowRange {
	var out []rowRange
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		from, to := max(a[i].from, b[j].from), min(a[i].to, b[j].to)
		if from < to {
			out = append(out, rowRange{from, to})
		}
		if a[i].to < b[j].to {
			i++
		} else {
			j++
		}
	}
	return out
}
