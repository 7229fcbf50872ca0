package aggregate

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Bitmap aggregates (bitmapExpressions.scala): bitmap_construct_agg sets one bit per input
// position, bitmap_or_agg and bitmap_and_agg combine binary bitmaps. Spark keeps one non-null
// binary buffer of BitmapExpressionUtils.NUM_BYTES bytes per group (zeros, or 0xFF for and) and
// returns it as is, so an empty group yields the initial bitmap, never null. Inputs may be of any
// length: or (bitmapMerge) combines the common prefix only; and (bitmapAndMerge) also clears the
// buffer's bytes past the input's length, so a short (even empty) input clears the rest. Partial
// buffers merge by the same rules as inputs: either half of a plan may run in Spark.
//
// The groups' bitmaps live in one flat slice, bitmapBytes per group, accounted to the task's
// memory (memSize): 4 KiB a group grows fast.

const (
	bitmapBytes = 4 * 1024
	bitmapBits  = 8 * bitmapBytes
)

type bitmapOp uint8

const (
	bitmapConstruct bitmapOp = iota
	bitmapOr
	bitmapAnd
)

var bitmapOpNames = [...]string{bitmapConstruct: "bitmap_construct_agg", bitmapOr: "bitmap_or_agg",
	bitmapAnd: "bitmap_and_agg"}

func init() {
	registerFunction("BitmapConstructAgg", bitmapAggBuilder(bitmapConstruct))
	registerFunction("BitmapOrAgg", bitmapAggBuilder(bitmapOr))
	registerFunction("BitmapAndAgg", bitmapAggBuilder(bitmapAnd))
}

func bitmapAggBuilder(op bitmapOp) fnBuilder {
	return func(fn *plan.Expr, c *fnContext) (*fnSpec, error) {
		child, t, err := singleChild(fn)
		if err != nil {
			return nil, err
		}
		want := sparktype.Binary
		if op == bitmapConstruct {
			want = sparktype.Long
		}
		if t.Kind != want {
			return nil, refuse("aggregate function %s over %s is not supported natively", bitmapOpNames[op], t)
		}
		in, err := bindInput(child, c)
		if err != nil {
			return nil, err
		}
		mk := func() function { return &bitmapAgg{in: in, op: op} }
		return &fnSpec{name: bitmapOpNames[op], bufTypes: []sparktype.Type{sparktype.BinaryType},
			resultType: sparktype.BinaryType, newState: mk}, nil
	}
}

type bitmapAgg struct {
	in *input
	op bitmapOp
	// bits holds group g's bitmap at [g*bitmapBytes, (g+1)*bitmapBytes).
	bits []byte
}

func (f *bitmapAgg) bufferTypes() []sparktype.Type { return []sparktype.Type{sparktype.BinaryType} }

func (f *bitmapAgg) memSize() int64 { return int64(cap(f.bits)) }

func (f *bitmapAgg) grow(n int) {
	old := len(f.bits)
	need := n * bitmapBytes
	if need <= old {
		return
	}
	if need <= cap(f.bits) {
		f.bits = f.bits[:need]
	} else {
		c := 2 * cap(f.bits)
		if c < need {
			c = need
		}
		nb := make([]byte, need, c)
		copy(nb, f.bits)
		f.bits = nb
	}
	init := byte(0)
	if f.op == bitmapAnd {
		init = 0xff
	}
	fresh := f.bits[old:need]
	for i := range fresh {
		fresh[i] = init
	}
}

func (f *bitmapAgg) update(ctx *exec.TaskContext, b *columnar.Batch, gids []uint32) error {
	col, err := f.in.eval(ctx, b)
	if err != nil {
		return err
	}
	defer col.Release()
	if f.op != bitmapConstruct {
		return f.merge([]arrow.Array{col}, gids)
	}
	vals := fixedValues[int64](col)
	if len(vals) < len(gids) {
		return fmt.Errorf("bitmap_construct_agg: column of %d values for %d rows", len(vals), len(gids))
	}
	valid, off := validity(col)
	bits := f.bits
	for i, g := range gids {
		if !bitSet(valid, off, i) {
			continue
		}
		p := vals[i]
		if p < 0 || p >= bitmapBits {
			return invalidBitmapPosition(p)
		}
		bits[int(g)*bitmapBytes+int(p>>3)] |= 1 << uint(p&7)
	}
	return nil
}

// invalidBitmapPosition is QueryExecutionErrors.invalidBitmapPositionError.
func invalidBitmapPosition(p int64) error {
	return &exec.SparkError{Class: "INVALID_BITMAP_POSITION", Exception: "runtime", Params: map[string]string{
		"bitPosition":    strconv.FormatInt(p, 10),
		"bitmapNumBytes": strconv.Itoa(bitmapBytes),
		"bitmapNumBits":  strconv.Itoa(bitmapBits),
	}}
}

// merge folds binary bitmaps (or_agg/and_agg inputs, or any function's partial buffers) into
// their groups.
func (f *bitmapAgg) merge(cols []arrow.Array, gids []uint32) error {
	name := bitmapOpNames[f.op]
	if cols[0].Len() < len(gids) {
		return fmt.Errorf("%s: column of %d values for %d rows", name, cols[0].Len(), len(gids))
	}
	offs, data, err := binaryParts(cols[0])
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	valid, off := validity(cols[0])
	bits := f.bits
	and := f.op == bitmapAnd
	for i, g := range gids {
		if !bitSet(valid, off, i) {
			continue
		}
		in := data[offs[i]:offs[i+1]]
		if len(in) > bitmapBytes {
			in = in[:bitmapBytes]
		}
		buf := bits[int(g)*bitmapBytes : (int(g)+1)*bitmapBytes]
		if and {
			for j, v := range in {
				buf[j] &= v
			}
			clear(buf[len(in):])
		} else {
			for j, v := range in {
				buf[j] |= v
			}
		}
	}
	return nil
}

func (f *bitmapAgg) buffers(alloc memory.Allocator, lo, hi int) ([]arrow.Array, error) {
	r, err := f.result(alloc, lo, hi)
	return []arrow.Array{r}, err
}

// result copies groups [lo, hi)'s bitmaps into a binary column: every value is bitmapBytes long,
// so the offsets are multiples of it.
func (f *bitmapAgg) result(alloc memory.Allocator, lo, hi int) (arrow.Array, error) {
	n := hi - lo
	offBuf := memory.NewResizableBuffer(alloc)
	offBuf.Resize((n + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	for i := 0; i <= n; i++ {
		offs[i] = int32(i * bitmapBytes)
	}
	dataBuf := memory.NewResizableBuffer(alloc)
	dataBuf.Resize(n * bitmapBytes)
	copy(dataBuf.Bytes(), f.bits[lo*bitmapBytes:hi*bitmapBytes])
	d := array.NewData(sparktype.BinaryType.Arrow(), n, []*memory.Buffer{nil, offBuf, dataBuf}, nil, 0, 0)
	defer d.Release()
	offBuf.Release()
	dataBuf.Release()
	return array.MakeFromData(d), nil
}
