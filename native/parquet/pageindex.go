package parquet

import (
	"math"

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
	all = true
	for k := range r.preds {
		p := &r.preds[k]
		pi := r.indexes[[2]int{i, p.leaf.index}]
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

// loadPageIndexes reads the page indexes of the predicates' columns in the row groups to read.
// Writers put every index of a file together before its footer, so they are read in one piece
// (an object store's single request) when that piece is not much larger than the indexes.
func (r *Reader) loadPageIndexes() {
	type want struct {
		rg, col int
		cc      *format.ColumnChunk
	}
	var wants []want
	lo, hi, total := int64(math.MaxInt64), int64(0), int64(0)
	for _, i := range r.groups {
		rg := &r.meta.RowGroups[i]
		for k := range r.preds {
			col := r.preds[k].leaf.index
			if col >= len(rg.Columns) {
				continue
			}
			cc := &rg.Columns[col]
			if !indexPlausible(cc, r.file.Size()) {
				continue
			}
			wants = append(wants, want{i, col, cc})
			for _, e := range [][2]int64{{cc.ColumnIndexOffset, int64(cc.ColumnIndexLength)}, {cc.OffsetIndexOffset, int64(cc.OffsetIndexLength)}} {
				lo, hi = min(lo, e[0]), max(hi, e[0]+e[1])
				total += e[1]
			}
		}
	}
	if len(wants) == 0 {
		return
	}
	r.indexes = map[[2]int]*pageIndex{}
	var span []byte
	if hi-lo <= 4*total+64<<10 {
		span = make([]byte, hi-lo)
		if m, _ := r.file.ReadAt(span, lo); m < len(span) {
			span = nil
		}
	}
	read := func(off int64, n int32) []byte {
		if span != nil {
			return span[off-lo : off-lo+int64(n)]
		}
		b := make([]byte, n)
		if m, _ := r.file.ReadAt(b, off); m < len(b) {
			return nil
		}
		return b
	}
	for _, w := range wants {
		key := [2]int{w.rg, w.col}
		if _, done := r.indexes[key]; done {
			continue
		}
		r.indexes[key] = decodePageIndex(read(w.cc.ColumnIndexOffset, w.cc.ColumnIndexLength),
			read(w.cc.OffsetIndexOffset, w.cc.OffsetIndexLength), r.meta.RowGroups[w.rg].NumRows)
	}
}

// indexPlausible reports whether a column chunk's page index lies inside the file.
func indexPlausible(cc *format.ColumnChunk, size int64) bool {
	return cc.ColumnIndexLength > 0 && cc.OffsetIndexLength > 0 && cc.ColumnIndexOffset > 0 && cc.OffsetIndexOffset > 0 &&
		cc.ColumnIndexOffset+int64(cc.ColumnIndexLength) <= size && cc.OffsetIndexOffset+int64(cc.OffsetIndexLength) <= size
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

// decodePageIndex decodes a column chunk's column and offset indexes; nil when they cannot be
// decoded or do not add up.
func decodePageIndex(ciBytes, oiBytes []byte, rows int64) *pageIndex {
	if ciBytes == nil || oiBytes == nil {
		return nil
	}
	pi := &pageIndex{}
	var oi format.OffsetIndex
	if noPanic(func() error {
		if err := thrift.Unmarshal(&thrift.CompactProtocol{}, ciBytes, &pi.ci); err != nil {
			return err
		}
		return thrift.Unmarshal(&thrift.CompactProtocol{}, oiBytes, &oi)
	}) != nil {
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
