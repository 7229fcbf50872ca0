package iceberg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
)

// equalitySet holds the rows of equality delete files with the same equality field ids: a data
// row whose values in those fields equal one of them (null equal to null, as Iceberg's
// StructLikeSet compares) is deleted.
//
// Keys are the fields' values in one byte string per row. Float and double compare like Java's
// Float.equals (NaN equals NaN, -0.0 differs from 0.0), so NaN is canonicalized.
type equalitySet struct {
	ids  []int32
	keys map[string]struct{}
}

func newEqualitySet(ids []int32) *equalitySet {
	return &equalitySet{ids: ids, keys: make(map[string]struct{})}
}

func sameIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// keyWriter appends the key of row i of a column; one per column, chosen once per batch.
type keyWriter func(key []byte, i int) []byte

func keyWriterOf(a arrow.Array) (keyWriter, error) {
	valid, off := columnar.ValidityBits(a)
	isNull := func(i int) bool { return valid != nil && !bitutil.BitIsSet(valid, off+i) }
	withNull := func(w keyWriter) keyWriter {
		return func(key []byte, i int) []byte {
			if isNull(i) {
				return append(key, 0)
			}
			return w(append(key, 1), i)
		}
	}
	switch a.DataType().ID() {
	case arrow.BOOL:
		bits, boff := columnar.BoolBits(a)
		return withNull(func(key []byte, i int) []byte {
			if bitutil.BitIsSet(bits, boff+i) {
				return append(key, 1)
			}
			return append(key, 0)
		}), nil
	case arrow.INT8:
		v := columnar.Values[int8](a)
		return withNull(func(key []byte, i int) []byte { return append(key, byte(v[i])) }), nil
	case arrow.INT16:
		v := columnar.Values[int16](a)
		return withNull(func(key []byte, i int) []byte { return binary.LittleEndian.AppendUint16(key, uint16(v[i])) }), nil
	case arrow.INT32, arrow.DATE32:
		v := columnar.Values[int32](a)
		return withNull(func(key []byte, i int) []byte { return binary.LittleEndian.AppendUint32(key, uint32(v[i])) }), nil
	case arrow.INT64, arrow.TIMESTAMP:
		v := columnar.Values[int64](a)
		return withNull(func(key []byte, i int) []byte { return binary.LittleEndian.AppendUint64(key, uint64(v[i])) }), nil
	case arrow.FLOAT32:
		v := columnar.Values[float32](a)
		return withNull(func(key []byte, i int) []byte {
			f := v[i]
			if f != f {
				f = float32(math.NaN())
			}
			return binary.LittleEndian.AppendUint32(key, math.Float32bits(f))
		}), nil
	case arrow.FLOAT64:
		v := columnar.Values[float64](a)
		return withNull(func(key []byte, i int) []byte {
			f := v[i]
			if f != f {
				f = math.NaN()
			}
			return binary.LittleEndian.AppendUint64(key, math.Float64bits(f))
		}), nil
	case arrow.DECIMAL128:
		v := columnar.Values[decimal128.Num](a)
		return withNull(func(key []byte, i int) []byte {
			key = binary.LittleEndian.AppendUint64(key, v[i].LowBits())
			return binary.LittleEndian.AppendUint64(key, uint64(v[i].HighBits()))
		}), nil
	case arrow.STRING, arrow.BINARY:
		offs, data := columnar.BinaryParts(a)
		return withNull(func(key []byte, i int) []byte {
			b := data[offs[i]:offs[i+1]]
			key = binary.LittleEndian.AppendUint32(key, uint32(len(b)))
			return append(key, b...)
		}), nil
	}
	return nil, fmt.Errorf("equality deletes on a column of type %s are not supported natively", a.DataType())
}

func keyWriters(cols []arrow.Array) ([]keyWriter, error) {
	ws := make([]keyWriter, len(cols))
	for i, c := range cols {
		w, err := keyWriterOf(c)
		if err != nil {
			return nil, err
		}
		ws[i] = w
	}
	return ws, nil
}

// add inserts every row of a batch of the delete file's equality columns.
func (s *equalitySet) add(cols []arrow.Array, n int) error {
	ws, err := keyWriters(cols)
	if err != nil {
		return err
	}
	var key []byte
	for i := 0; i < n; i++ {
		key = key[:0]
		for _, w := range ws {
			key = w(key, i)
		}
		s.keys[string(key)] = struct{}{}
	}
	return nil
}

// mark sets deleted[i] for every row of the data batch's equality columns found in the set.
func (s *equalitySet) mark(cols []arrow.Array, n int, deleted []bool) (int, error) {
	if len(s.keys) == 0 {
		return 0, nil
	}
	ws, err := keyWriters(cols)
	if err != nil {
		return 0, err
	}
	var key []byte
	count := 0
	for i := 0; i < n; i++ {
		if deleted[i] {
			continue
		}
		key = key[:0]
		for _, w := range ws {
			key = w(key, i)
		}
		if _, ok := s.keys[string(key)]; ok {
			deleted[i] = true
			count++
		}
	}
	return count, nil
}
