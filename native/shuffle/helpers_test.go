package shuffle

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Test values and inputs come from coltest; this file has the shuffle's value domain, its
// expressions and the reading side of a round trip.

const cat = "org.apache.spark.sql.catalyst.expressions."

// allTypes is every type a shuffle block carries.
var allTypes = []string{"boolean", "byte", "short", "integer", "long", "float", "double", "decimal(10,2)",
	"decimal(38,6)", "string", "binary", "date", "timestamp", "timestamp_ntz"}

var allCodecs = []Codec{CodecNone, CodecLZ4, CodecZstd, CodecSnappy}

// genValue draws a value of a type, with nulls at nullRate and edge values (NaNs, -0.0, extreme
// integers, empty and multi-byte strings).
func genValue(rng *rand.Rand, ty sparktype.Type, nullRate float64) any {
	if rng.Float64() < nullRate {
		return nil
	}
	pick := func(vs ...int64) int64 { return vs[rng.IntN(len(vs))] }
	switch ty.Kind {
	case sparktype.Boolean:
		return rng.IntN(2) == 1
	case sparktype.Byte:
		return pick(math.MinInt8, -1, 0, 1, math.MaxInt8, int64(int8(rng.Uint32())))
	case sparktype.Short:
		return pick(math.MinInt16, -1, 0, math.MaxInt16, int64(int16(rng.Uint32())))
	case sparktype.Int, sparktype.Date:
		return pick(math.MinInt32, -1, 0, 7, math.MaxInt32, int64(int32(rng.Uint32())), int64(rng.IntN(100)))
	case sparktype.Long, sparktype.Timestamp, sparktype.TimestampNTZ:
		return pick(math.MinInt64, -1, 0, 1<<32, math.MaxInt64, int64(rng.Uint64()), int64(rng.IntN(100)))
	case sparktype.Float, sparktype.Double:
		v := []float64{math.NaN(), math.Float64frombits(0xfff8000000000001), math.Inf(1), math.Inf(-1),
			0, math.Copysign(0, -1), 1.5, -1, rng.NormFloat64() * 1e6}[rng.IntN(9)]
		if ty.Kind == sparktype.Float {
			v = float64(float32(v))
		}
		return v
	case sparktype.Decimal:
		limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ty.Precision)), nil)
		limit.Sub(limit, big.NewInt(1))
		switch rng.IntN(4) {
		case 0:
			return limit
		case 1:
			return new(big.Int).Neg(limit)
		}
		var raw [16]byte
		binary.LittleEndian.PutUint64(raw[:], rng.Uint64())
		binary.LittleEndian.PutUint64(raw[8:], rng.Uint64())
		x := new(big.Int).SetBytes(raw[:rng.IntN(17)])
		x.Mod(x, new(big.Int).Add(limit, big.NewInt(1)))
		if rng.IntN(2) == 0 {
			x.Neg(x)
		}
		return x
	case sparktype.String, sparktype.Binary:
		switch rng.IntN(4) {
		case 0:
			return []string{"", "a", "é", "\xff\x00", "日本語"}[rng.IntN(5)]
		case 1:
			return strings.Repeat("xyz", rng.IntN(100))
		}
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	panic("genValue: " + ty.String())
}

// ---- expressions ----

func columnJSON(ord int, typ string) string {
	return fmt.Sprintf(`{"class":%q,"dataType":%q,"nullable":true,"fields":{},"ordinal":%d,"name":"c%d"}`,
		cat+"AttributeReference", typ, ord, ord)
}

func translate(t testing.TB, js string) expr.Expr {
	t.Helper()
	var e plan.Expr
	if err := json.Unmarshal([]byte(js), &e); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	x, err := expr.Translate(&e, &plan.Conf{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// colExpr is input column ord of type typ.
func colExpr(t testing.TB, ord int, typ string) expr.Expr { return translate(t, columnJSON(ord, typ)) }

// ---- running ----

func tempPath(t testing.TB) string { return filepath.Join(t.TempDir(), "shuffle.data") }

// frames is a FrameSource over bytes, cut the way the JVM cuts a fetched stream: by the length
// prefix alone. It hands out one reused buffer and poisons it on the next call, so a reader that
// kept a view of a frame sees garbage.
type frames struct {
	data []byte
	pos  int
	buf  []byte
	err  error // returned at the end instead of nil, nil
}

func (f *frames) NextFrame() ([]byte, error) {
	for i := range f.buf {
		f.buf[i] = 0xA5
	}
	if f.pos >= len(f.data) {
		return nil, f.err
	}
	rest := f.data[f.pos:]
	if len(rest) < FrameLengthSize {
		return nil, fmt.Errorf("stream ends inside a length prefix")
	}
	n := FrameLengthSize + int(binary.LittleEndian.Uint32(rest))
	if n > len(rest) {
		n = len(rest) // a truncated frame: hand it over as it is, the reader must say so
	}
	if cap(f.buf) < n {
		f.buf = make([]byte, n)
	}
	f.buf = f.buf[:n]
	copy(f.buf, rest[:n])
	f.pos += n
	return f.buf, nil
}

// readAll drains a reader over data, checking batch shapes (at most maxRows rows unless a block
// alone is larger) and that the reader gives back all its memory.
func readAll(t testing.TB, fields []sparktype.Field, data []byte, targetRows int) ([][]any, []int, error) {
	t.Helper()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	r := NewReader(fields, &frames{data: data}, targetRows)
	if err := r.Open(ctx); err != nil {
		return nil, nil, err
	}
	var rows [][]any
	var sizes []int
	var err error
	for {
		var b *columnar.Batch
		if b, err = r.Next(); err != nil || b == nil {
			break
		}
		if b.NumRows == 0 || len(b.Cols) != len(fields) {
			t.Errorf("batch of %d rows and %d columns", b.NumRows, len(b.Cols))
		}
		for c, a := range b.Cols {
			if a.Len() != b.NumRows {
				t.Fatalf("column of %d rows in a batch of %d", a.Len(), b.NumRows)
			}
			if !arrow.TypeEqual(a.DataType(), fields[c].Type.Arrow()) {
				t.Fatalf("column %d is %s, schema says %s", c, a.DataType(), fields[c].Type)
			}
		}
		sizes = append(sizes, b.NumRows)
		rows = append(rows, coltest.Rows(b)...)
		b.Release()
	}
	r.Close()
	r.Close() // idempotent
	if used := ctx.Alloc.Used(); used != 0 {
		t.Errorf("reader: %d bytes still held after Close", used)
	}
	return rows, sizes, err
}

// partitionBytes cuts a data file into its partitions.
func partitionBytes(t testing.TB, path string, lengths []int64) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	out := make([][]byte, len(lengths))
	for i, l := range lengths {
		out[i] = data[total : total+l]
		total += l
	}
	if total != int64(len(data)) {
		t.Fatalf("partition lengths sum to %d, the file has %d bytes", total, len(data))
	}
	return out
}

type exprT = expr.Expr
