package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// DecodeValue decodes a literal or partition value encoded by the JVM (see the Literal encoding
// above) into its Go form: nil, bool, int64 (byte, short, int, long, date days, timestamp micros),
// float64 (float, double), decimal128.Num (unscaled, at t's scale), string, []byte.
func DecodeValue(raw json.RawMessage, t sparktype.Type) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch t.Kind {
	case sparktype.Boolean:
		var v bool
		err := json.Unmarshal(raw, &v)
		return v, err
	case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long, sparktype.Date,
		sparktype.Timestamp, sparktype.TimestampNTZ:
		var v int64
		err := json.Unmarshal(raw, &v)
		return v, err
	case sparktype.Float, sparktype.Double:
		var fb FloatBits
		if err := json.Unmarshal(raw, &fb); err != nil || fb.Bits == nil {
			return nil, fmt.Errorf("decode %s value %s: want {\"bits\": n}", t, raw)
		}
		if t.Kind == sparktype.Float {
			return float64(math.Float32frombits(uint32(*fb.Bits))), nil
		}
		return math.Float64frombits(uint64(*fb.Bits)), nil
	case sparktype.Decimal:
		var dv DecimalValue
		if err := json.Unmarshal(raw, &dv); err != nil {
			return nil, fmt.Errorf("decode %s value %s: %w", t, raw, err)
		}
		bi, ok := new(big.Int).SetString(dv.Unscaled, 10)
		if !ok {
			return nil, fmt.Errorf("decode %s value %s: bad unscaled digits", t, raw)
		}
		// Rescale to the declared type's scale (a literal's own scale equals it in practice).
		for s := dv.Scale; s < t.Scale; s++ {
			bi.Mul(bi, big.NewInt(10))
		}
		if dv.Scale > t.Scale {
			return nil, fmt.Errorf("decode %s value %s: scale %d above the type's", t, raw, dv.Scale)
		}
		return decimal128.FromBigInt(bi), nil
	case sparktype.String:
		var bv BytesValue
		if err := json.Unmarshal(raw, &bv); err != nil {
			return nil, fmt.Errorf("decode %s value %s: %w", t, raw, err)
		}
		return string(bv.B64), nil
	case sparktype.Binary:
		var bv BytesValue
		if err := json.Unmarshal(raw, &bv); err != nil {
			return nil, fmt.Errorf("decode %s value %s: %w", t, raw, err)
		}
		return bv.B64, nil
	}
	return nil, fmt.Errorf("values of type %s are not supported natively", t)
}
