package columnar

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Lazy is a batch whose columns are decoded only when asked for. A scan hands one to the filter
// above it, which decodes the columns its predicate reads (as dictionary codes where the file
// stores them so), narrows the rows, and then has the other columns decoded for the surviving
// rows only: late materialization. Columns nobody asks for are skipped undecoded.
//
// A Lazy is valid until Release, and at most until its source's next batch: the source decodes
// its columns in file order, so the batches of one source are read one at a time.
type Lazy interface {
	// NumRows is the number of rows of the batch, dropped rows included.
	NumRows() int
	// Live lists the rows the source did not drop (an Iceberg task's deleted rows are not live),
	// increasing; nil when every row is live. Valid until Release; never written by the caller.
	Live() []int32
	// Column returns column i over all NumRows rows (a new reference: the caller releases it).
	Column(i int) (arrow.Array, error)
	// Take returns column i over the rows sel (increasing), a new reference.
	Take(i int, sel []int32) (arrow.Array, error)
	// Codes returns column i as dictionary codes when every row of the batch is
	// dictionary-encoded in the file: one code per row indexing dict, whose last entry is the
	// only null one (a null row's code). ok is false when the column is not so encoded (Column
	// then gives its values). The codes are valid until Release; dict is the same array for every
	// batch that shares the dictionary (a row group's), so what a consumer computed from it holds
	// as long as it holds a reference to dict.
	Codes(i int) (codes []int32, dict arrow.Array, ok bool, err error)
	// Release drops what the batch holds; the columns it returned stay valid.
	Release()
}

// Materialize decodes every column of l over its live rows into a batch.
func Materialize(l Lazy, ncols int) (*Batch, error) {
	live := l.Live()
	rows := l.NumRows()
	if live != nil {
		rows = len(live)
	}
	cols := make([]arrow.Array, ncols)
	for i := range cols {
		var err error
		if live == nil {
			cols[i], err = l.Column(i)
		} else {
			cols[i], err = l.Take(i, live)
		}
		if err != nil {
			NewBatch(cols[:i], 0).Release()
			return nil, err
		}
	}
	return NewBatch(cols, rows), nil
}

// Eager is a Lazy over columns already decoded (a file read by Spark's own reader): Take
// gathers, Codes always declines.
type Eager struct {
	Batch *Batch
	Alloc memory.Allocator
}

// NewEager wraps b, taking over the caller's reference to it.
func NewEager(b *Batch, alloc memory.Allocator) *Eager { return &Eager{Batch: b, Alloc: alloc} }

func (e *Eager) NumRows() int  { return e.Batch.NumRows }
func (e *Eager) Live() []int32 { return nil }
func (e *Eager) Release()      { e.Batch.Release() }
func (e *Eager) col(i int) (arrow.Array, error) {
	if i < 0 || i >= len(e.Batch.Cols) {
		return nil, fmt.Errorf("column %d of a batch of %d columns", i, len(e.Batch.Cols))
	}
	return e.Batch.Cols[i], nil
}

func (e *Eager) Column(i int) (arrow.Array, error) {
	c, err := e.col(i)
	if err != nil {
		return nil, err
	}
	c.Retain()
	return c, nil
}

func (e *Eager) Take(i int, sel []int32) (arrow.Array, error) {
	c, err := e.col(i)
	if err != nil {
		return nil, err
	}
	if len(sel) == e.Batch.NumRows {
		c.Retain()
		return c, nil
	}
	return Take(e.Alloc, c, sel)
}

func (e *Eager) Codes(int) ([]int32, arrow.Array, bool, error) { return nil, nil, false, nil }
