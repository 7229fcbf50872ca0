package parquet

import (
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Spark 4 reads some columns as wider types than the file stores (ParquetVectorUpdaterFactory):
// integers and decimals as decimals of a larger scale, DATE as TIMESTAMP_NTZ. These are those
// conversions; schema.go decides when they apply.

// pow10 holds 10^0 .. 10^38, the multipliers of decimal widening.
var pow10 = func() [39]decimal128.Num {
	var p [39]decimal128.Num
	p[0] = decimal128.FromI64(1)
	ten := decimal128.FromI64(10)
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1].Mul(ten)
	}
	return p
}()

// rescaled multiplies what f decodes by 10^up: the file's unscaled values at the requested,
// larger scale (an INT32 read as decimal(12,2), decimal(5,2) read as decimal(7,4)). Planning only
// allows it when the requested precision grows at least as much as the scale, so the products fit.
func rescaled(f convFunc[decimal128.Num], up int32) convFunc[decimal128.Num] {
	if up == 0 {
		return f
	}
	m := pow10[up]
	return func(dst []decimal128.Num, v *rawVals, from, to int) error {
		if err := f(dst, v, from, to); err != nil {
			return err
		}
		for i := range dst[:to-from] {
			dst[i] = dst[i].Mul(m)
		}
		return nil
	}
}

// convDateToNTZ reads DATE days as TIMESTAMP_NTZ microseconds at midnight (Spark's
// DateToTimestampNTZUpdater).
func convDateToNTZ(dst []int64, v *rawVals, from, to int) error {
	src := viewAs[int32](v.data, v.n)[from:to]
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = int64(x) * microsPerDay
	}
	return nil
}
