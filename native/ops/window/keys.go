package window

import (
	"bytes"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Key equality of adjacent rows, for partition boundaries and peer groups.
//
// Spark compares window partition keys as UnsafeRow bytes after NormalizeFloatingNumbers has
// turned every NaN into one NaN and -0.0 into 0.0, and compares order keys for peers with
// EqualNullSafe (ranking functions) or the ordering (RANGE frames); both make NaN equal to NaN and
// -0.0 equal to 0.0, nulls equal to nulls and different from values, and strings equal by bytes.
// One equality therefore serves both.

// KeySupported reports whether adjacent rows of type t can be compared natively.
func KeySupported(t sparktype.Type) error {
	switch t.Kind {
	case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long,
		sparktype.Float, sparktype.Double, sparktype.Decimal, sparktype.Binary, sparktype.Date,
		sparktype.Timestamp, sparktype.TimestampNTZ:
		return nil
	case sparktype.String:
		if t.Name != "string" {
			return fmt.Errorf("window key of collated type %s", t)
		}
		return nil
	}
	return fmt.Errorf("window key of type %s is not supported natively", t)
}

// markChanges sets changed[i] for every row i of cur whose key differs from row i-1's; row -1 is
// row 0 of prev (a one-row column), or, when prev is nil, row 0 is left as it is.
func markChanges(prev, cur arrow.Array, changed []bool) {
	n := cur.Len()
	if n == 0 {
		return
	}
	if prev != nil && !equalAt(prev, 0, cur, 0) {
		changed[0] = true
	}
	switch c := cur.(type) {
	case *array.Int8:
		markFixed(c, c.Int8Values(), changed, eqInt[int8])
	case *array.Int16:
		markFixed(c, c.Int16Values(), changed, eqInt[int16])
	case *array.Int32:
		markFixed(c, c.Int32Values(), changed, eqInt[int32])
	case *array.Int64:
		markFixed(c, c.Int64Values(), changed, eqInt[int64])
	case *array.Date32:
		markFixed(c, c.Date32Values(), changed, eqInt[arrow.Date32])
	case *array.Timestamp:
		markFixed(c, c.TimestampValues(), changed, eqInt[arrow.Timestamp])
	case *array.Float32:
		markFixed(c, c.Float32Values(), changed, eqFloat[float32])
	case *array.Float64:
		markFixed(c, c.Float64Values(), changed, eqFloat[float64])
	case *array.Decimal128:
		markFixed(c, columnar.Values[decimal128.Num](c), changed, eqInt[decimal128.Num])
	case *array.Boolean:
		for i := 1; i < n; i++ {
			if !changed[i] && !equalAt(c, i-1, c, i) {
				changed[i] = true
			}
		}
	case *array.String, *array.Binary:
		offs, data := columnar.BinaryParts(c)
		bits, off := columnar.ValidityBits(c)
		for i := 1; i < n; i++ {
			if changed[i] {
				continue
			}
			if bits != nil {
				pn, cn := !bitutil.BitIsSet(bits, off+i-1), !bitutil.BitIsSet(bits, off+i)
				if pn || cn {
					if pn != cn {
						changed[i] = true
					}
					continue
				}
			}
			if !bytes.Equal(data[offs[i-1]:offs[i]], data[offs[i]:offs[i+1]]) {
				changed[i] = true
			}
		}
	default:
		panic(fmt.Sprintf("window: key column of Arrow type %s", cur.DataType()))
	}
}

func eqInt[T comparable](a, b T) bool { return a == b }

// eqFloat is Spark's key equality of floating values: NaN equals NaN, -0.0 equals 0.0.
func eqFloat[T float32 | float64](a, b T) bool {
	return a == b || (math.IsNaN(float64(a)) && math.IsNaN(float64(b)))
}

// markFixed is the typed loop of markChanges over a fixed-width column.
func markFixed[T any](a arrow.Array, vals []T, changed []bool, eq func(a, b T) bool) {
	bits, off := columnar.ValidityBits(a)
	n := len(vals)
	if bits == nil {
		for i := 1; i < n; i++ {
			if !eq(vals[i-1], vals[i]) {
				changed[i] = true
			}
		}
		return
	}
	for i := 1; i < n; i++ {
		pn, cn := !bitutil.BitIsSet(bits, off+i-1), !bitutil.BitIsSet(bits, off+i)
		if pn || cn {
			if pn != cn {
				changed[i] = true
			}
			continue
		}
		if !eq(vals[i-1], vals[i]) {
			changed[i] = true
		}
	}
}

// equalAt compares row i of a with row j of b (same type); once per batch, at batch boundaries.
func equalAt(a arrow.Array, i int, b arrow.Array, j int) bool {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		return an == bn
	}
	switch x := a.(type) {
	case *array.Int8:
		return x.Value(i) == b.(*array.Int8).Value(j)
	case *array.Int16:
		return x.Value(i) == b.(*array.Int16).Value(j)
	case *array.Int32:
		return x.Value(i) == b.(*array.Int32).Value(j)
	case *array.Int64:
		return x.Value(i) == b.(*array.Int64).Value(j)
	case *array.Date32:
		return x.Value(i) == b.(*array.Date32).Value(j)
	case *array.Timestamp:
		return x.Value(i) == b.(*array.Timestamp).Value(j)
	case *array.Float32:
		return eqFloat(x.Value(i), b.(*array.Float32).Value(j))
	case *array.Float64:
		return eqFloat(x.Value(i), b.(*array.Float64).Value(j))
	case *array.Decimal128:
		return x.Value(i) == b.(*array.Decimal128).Value(j)
	case *array.Boolean:
		return x.Value(i) == b.(*array.Boolean).Value(j)
	case *array.String:
		return x.Value(i) == b.(*array.String).Value(j)
	case *array.Binary:
		return bytes.Equal(x.Value(i), b.(*array.Binary).Value(j))
	}
	panic(fmt.Sprintf("window: key column of Arrow type %s", a.DataType()))
}
