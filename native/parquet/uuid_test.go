package parquet

import (
	"errors"
	"fmt"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/sparktype"
)

func TestUUIDAsString(t *testing.T) {
	val := func(i int) []byte {
		b := make([]byte, 16)
		for j := range b {
			b[j] = byte(i*31 + j*17)
		}
		return b
	}
	col := tcol{name: "u", node: pq.Optional(pq.UUID()), spark: sparktype.StringType,
		gen: func(i int) (pq.Value, any) {
			if i%5 == 4 {
				return pq.NullValue(), nil
			}
			b := val(i)
			return pq.FixedLenByteArrayValue(b), fmt.Sprintf("%x-%x-%x-%x-%x", b[:4], b[4:6], b[6:8], b[8:10], b[10:])
		}}
	for _, dict := range []bool{false, true} {
		var opts []pq.WriterOption
		if dict {
			col.node = pq.Optional(pq.Encoded(pq.UUID(), &pq.RLEDictionary))
		}
		path := writeFile(t, []tcol{col}, 3000, opts...)
		spec := &ScanSpec{Columns: fields([]tcol{col}), FieldIDs: []int32{1}, BatchSize: 1000}
		rows, _ := readAll(t, path, 0, 1<<40, spec, checkedAlloc(t))
		if len(rows) != 3000 {
			t.Fatalf("%d rows", len(rows))
		}
		for i, r := range rows {
			_, want := col.gen(i)
			if !equalCell(r[0], want) {
				t.Fatalf("dict %v row %d: got %v, want %v", dict, i, r[0], want)
			}
		}
		// By name (Spark's Parquet scan), a uuid column is not a string.
		_, err := Open(path, 0, 1<<40, &ScanSpec{Columns: fields([]tcol{col})}, checkedAlloc(t))
		var tm *TypeMismatchError
		if !errors.As(err, &tm) {
			t.Errorf("by name: want a type mismatch, got %v", err)
		}
	}
}
