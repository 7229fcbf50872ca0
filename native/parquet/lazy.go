package parquet

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
)

// LazyBatch is the next rows of a Reader with their columns still undecoded (a columnar.Lazy):
// each column is decoded when asked for, whole, as dictionary codes, or for some rows only, and
// the columns nobody asked for are skipped when the batch is released (or at the reader's next
// batch). See selected.go.
type LazyBatch struct {
	r    *Reader
	n    int
	cols []lazyColumn
	done bool
}

type lazyState uint8

const (
	lazyPending lazyState = iota // the column's cursor is at the batch's first row
	lazyCoded                    // read as codes (codes, dict)
	lazyValues                   // read as values (arr)
	lazyTaken                    // read for some rows only: nothing kept
)

type lazyColumn struct {
	state   lazyState
	arr     arrow.Array
	codes   []int32 // scratch, or a view of the page's indexes
	dict    arrow.Array
	scratch []int32 // the codes of a batch that spans pages, reused
}

// NextLazy returns the next batch with its columns undecoded, or nil, nil at the end of the split.
// The previous batch's columns that were not read are skipped first.
func (r *Reader) NextLazy() (lb *LazyBatch, err error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.closed {
		return nil, &FileError{Path: r.path, Err: errors.New("read: reader is closed")}
	}
	defer r.guard(&err)
	if r.lazy != nil {
		if err := r.lazy.finish(); err != nil {
			return nil, err
		}
	}
	var avail int64
	for avail == 0 {
		for r.left == 0 {
			r.endRowGroup()
			if r.next >= len(r.groups) {
				return nil, nil
			}
			if err := r.startRowGroup(r.groups[r.next]); err != nil {
				return nil, err
			}
			r.next++
		}
		if avail, err = r.skipPruned(); err != nil {
			return nil, err
		}
	}
	n := r.batch
	if int64(n) > avail {
		n = int(avail)
	}
	r.last = r.pos
	r.pos += int64(n)
	r.left -= int64(n)
	r.stats.RowsRead += int64(n)
	r.stats.Batches++
	if cap(r.lazyCols) < len(r.cols) {
		r.lazyCols = make([]lazyColumn, len(r.cols))
	}
	lb = &LazyBatch{r: r, n: n, cols: r.lazyCols[:len(r.cols)]}
	for i := range lb.cols {
		lb.cols[i] = lazyColumn{scratch: lb.cols[i].scratch}
	}
	r.lazy = lb
	return lb, nil
}

// guard turns a panic of the decoding into an error, and makes any error name the file and
// stick: the reader is unusable after it.
func (r *Reader) guard(errp *error) {
	if p := recover(); p != nil {
		*errp = fmt.Errorf("row group %d: corrupt file (%v)", r.rg, p)
	}
	if *errp != nil {
		var fe *FileError
		if !errors.As(*errp, &fe) {
			*errp = &FileError{Path: r.path, Err: fmt.Errorf("read: %w", *errp)}
		}
		r.err = *errp
		r.releaseColumns()
	}
}

// colErr names the row group and column of a decoding error.
func (r *Reader) colErr(c *column, err error) error {
	name := c.field.Name
	if c.leaf != nil {
		name = c.leaf.name
	}
	return fmt.Errorf("row group %d column %s: %w", r.rg, name, err)
}

func (b *LazyBatch) NumRows() int  { return b.n }
func (b *LazyBatch) Live() []int32 { return nil }

// use checks that the batch is still the reader's current one.
func (b *LazyBatch) use(i int) (*lazyColumn, error) {
	if b.done || b.r.lazy != b {
		return nil, errors.New("read: a batch used after the reader moved on")
	}
	if b.r.err != nil {
		return nil, b.r.err
	}
	if i < 0 || i >= len(b.cols) {
		return nil, fmt.Errorf("read: column %d of %d", i, len(b.cols))
	}
	return &b.cols[i], nil
}

// Column decodes column i over all the batch's rows.
func (b *LazyBatch) Column(i int) (a arrow.Array, err error) {
	lc, err := b.use(i)
	if err != nil {
		return nil, err
	}
	r := b.r
	defer r.guard(&err)
	c := r.cols[i]
	switch lc.state {
	case lazyPending:
		if lc.arr, err = c.read(b.n, r.alloc); err != nil {
			return nil, r.colErr(c, err)
		}
		lc.state = lazyValues
	case lazyCoded:
		if lc.arr, err = columnar.ExpandCodes(r.alloc, lc.dict, lc.codes); err != nil {
			return nil, r.colErr(c, err)
		}
		lc.state = lazyValues
	case lazyTaken:
		return nil, r.colErr(c, errors.New("read twice in one batch"))
	}
	lc.arr.Retain()
	return lc.arr, nil
}

// Take decodes column i over the rows sel (increasing) only. A column is read for some rows at
// most once per batch, unless it was read whole or as codes first.
func (b *LazyBatch) Take(i int, sel []int32) (a arrow.Array, err error) {
	lc, err := b.use(i)
	if err != nil {
		return nil, err
	}
	r := b.r
	defer r.guard(&err)
	c := r.cols[i]
	switch lc.state {
	case lazyPending:
		if len(sel) == b.n {
			return b.Column(i)
		}
		if 4*len(sel) > 3*b.n && !c.selective() {
			// Nearly every row of a column whose decoder cannot convert some rows only:
			// decoding it whole and gathering is as cheap, and keeps the column for another
			// read.
			if lc.arr, err = c.read(b.n, r.alloc); err != nil {
				return nil, r.colErr(c, err)
			}
			lc.state = lazyValues
			return b.Take(i, sel)
		}
		// Even a dense selection (TPC-H Q1 keeps 98% of its rows) is converted straight into
		// the output: decoding whole and then gathering wrote every value twice, into a
		// buffer as large as the batch that was thrown away.
		lc.state = lazyTaken
		if a, err = c.readSelected(b.n, sel, r.alloc); err != nil {
			return nil, r.colErr(c, err)
		}
		return a, nil
	case lazyCoded:
		if a, err = columnar.TakeCodes(r.alloc, lc.dict, lc.codes, sel); err != nil {
			return nil, r.colErr(c, err)
		}
		return a, nil
	case lazyValues:
		if len(sel) == b.n {
			lc.arr.Retain()
			return lc.arr, nil
		}
		if a, err = columnar.Take(r.alloc, lc.arr, sel); err != nil {
			return nil, r.colErr(c, err)
		}
		return a, nil
	}
	return nil, r.colErr(c, errors.New("read twice in one batch"))
}

// Codes reads column i as dictionary codes when its pages in this batch are dictionary-encoded.
func (b *LazyBatch) Codes(i int) (codes []int32, dict arrow.Array, ok bool, err error) {
	lc, err := b.use(i)
	if err != nil {
		return nil, nil, false, err
	}
	r := b.r
	defer r.guard(&err)
	c := r.cols[i]
	switch lc.state {
	case lazyCoded:
		return lc.codes, lc.dict, true, nil
	case lazyPending:
	default:
		return nil, nil, false, nil
	}
	lc.scratch = grow(lc.scratch, b.n)
	codes, d, ok, arr, err := c.codes(b.n, lc.scratch, r.alloc)
	if err != nil {
		return nil, nil, false, r.colErr(c, err)
	}
	switch {
	case ok:
		lc.state, lc.dict, lc.codes = lazyCoded, d, codes
		return codes, d, true, nil
	case arr != nil:
		lc.state, lc.arr = lazyValues, arr
	}
	return nil, nil, false, nil
}

// Release skips the columns nobody read and drops the decoded ones.
func (b *LazyBatch) Release() {
	if b.done {
		return
	}
	if b.r.lazy == b {
		_ = b.r.finishLazy()
		return
	}
	b.done = true
}

// finish moves every column past the batch and releases what the batch holds.
func (b *LazyBatch) finish() error {
	if b.done {
		return nil
	}
	b.done = true
	r := b.r
	r.lazy = nil
	var first error
	for i := range b.cols {
		lc := &b.cols[i]
		if lc.state == lazyPending && first == nil && r.err == nil {
			if err := r.cols[i].skip(b.n, r.alloc); err != nil {
				first = r.colErr(r.cols[i], err)
			}
		}
		if lc.arr != nil {
			lc.arr.Release()
			lc.arr = nil
		}
		lc.dict = nil // the column's own (column.dictArr)
	}
	return first
}

// finishLazy ends the current lazy batch, making a skip error the reader's.
func (r *Reader) finishLazy() (err error) {
	defer r.guard(&err)
	return r.lazy.finish()
}

var _ columnar.Lazy = (*LazyBatch)(nil)
