// Package columnar owns the unit of data that flows between native operators: a batch of Arrow
// columns with one row count, and the typed helpers operators use to build and slice columns.
package columnar

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Batch is a set of equally long Arrow columns. Whoever receives a batch from Next owns one
// reference to each column and must call Release once.
type Batch struct {
	Cols    []arrow.Array
	NumRows int
}

// NewBatch wraps columns; numRows is given explicitly so that zero-column batches keep a count.
func NewBatch(cols []arrow.Array, numRows int) *Batch {
	return &Batch{Cols: cols, NumRows: numRows}
}

// Release drops this batch's references to its columns.
func (b *Batch) Release() {
	if b == nil {
		return
	}
	for _, c := range b.Cols {
		if c != nil {
			c.Release()
		}
	}
	b.Cols = nil
}

// Record turns the batch into an Arrow record batch of the given schema; the record takes new
// references, the batch keeps its own.
func (b *Batch) Record(schema *arrow.Schema) arrow.RecordBatch {
	return array.NewRecordBatch(schema, b.Cols, int64(b.NumRows))
}

// FromRecord wraps the columns of a record batch, retaining each.
func FromRecord(rec arrow.RecordBatch) *Batch {
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = rec.Column(i)
		cols[i].Retain()
	}
	return &Batch{Cols: cols, NumRows: int(rec.NumRows())}
}
