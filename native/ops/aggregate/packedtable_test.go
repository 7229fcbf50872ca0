package aggregate

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/bolide-dev/bolide/native/sparktype"
)

var packableTypes = []sparktype.Type{sparktype.BooleanType, sparktype.ByteType, sparktype.ShortType,
	sparktype.IntType, sparktype.LongType, sparktype.DateType, sparktype.TimestampType,
	sparktype.TimestampNTZType, sparktype.DecimalOf(7, 2), sparktype.DecimalOf(18, 0),
	sparktype.StringType, sparktype.StringType, sparktype.BinaryType}

// TestPackedTableMatchesBytesTable: over random composite key types, values (few distinct, so
// that groups repeat; nulls, empty strings, extremes, sliced columns) and batches, the packed
// table assigns the same group ids as the composite bytes table, rebuilds the same key columns,
// reports the same spill partitions, and migrates to the bytes table when a later string does
// not fit.
func TestPackedTableMatchesBytesTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	migrated, stayed := 0, 0
	for trial := 0; trial < 300; trial++ {
		k := 1 + r.IntN(4)
		types := make([]sparktype.Type, k)
		for i := range types {
			types[i] = packableTypes[r.IntN(len(packableTypes))]
		}
		composite := true
		if k == 1 {
			switch types[0].Kind {
			case sparktype.String, sparktype.Binary:
				composite = false // as the bytes table's single key
			case sparktype.Decimal:
			default:
				types = append(types, sparktype.BooleanType) // a single int-like key has the int table
			}
		}
		name := fmt.Sprint(trial, types)
		pt := newPackedTable(types, composite)
		if pt == nil {
			continue // the fixed widths alone need more than two words
		}
		bt := newBytesTable(types, composite)
		maxLen := 1 + r.IntN(3)
		seed := spillSeed{bits: r.Uint64(), bytes: maphash.MakeSeed()}
		for batch := 0; batch < 5; batch++ {
			if batch == 3 && r.IntN(3) == 0 {
				maxLen = 12 // later strings may not fit: migration
			}
			n := 1 + r.IntN(400)
			cols := make([]arrow.Array, len(types))
			for i, ty := range types {
				cols[i] = randKeyColumn(r, ty, n, maxLen)
			}
			got, want := make([]uint32, n), make([]uint32, n)
			if err := pt.assign(cols, n, got); err != nil {
				t.Fatal(name, err)
			}
			if err := bt.assign(cols, n, want); err != nil {
				t.Fatal(name, err)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s batch %d row %d: group %d, want %d", name, batch, i, got[i], want[i])
				}
			}
			for _, c := range cols {
				c.Release()
			}
		}
		ng := bt.numGroups()
		if pt.numGroups() != ng {
			t.Fatalf("%s: %d groups, want %d", name, pt.numGroups(), ng)
		}
		if pt.bytes != nil {
			migrated++
		} else {
			stayed++
		}
		lo := r.IntN(ng)
		gk, err := pt.keyColumns(gomem, lo, ng)
		if err != nil {
			t.Fatal(err)
		}
		wk, _ := bt.keyColumns(gomem, lo, ng)
		for c := range gk {
			if !arrow.TypeEqual(gk[c].DataType(), wk[c].DataType()) {
				t.Fatalf("%s key %d: type %s, want %s", name, c, gk[c].DataType(), wk[c].DataType())
			}
			for g := 0; g < ng-lo; g++ {
				if cell(gk[c], g) != cell(wk[c], g) {
					t.Fatalf("%s key %d group %d: %v, want %v", name, c, lo+g, cell(gk[c], g), cell(wk[c], g))
				}
			}
			gk[c].Release()
			wk[c].Release()
		}
		gp, wp := make([]uint8, ng-lo), make([]uint8, ng-lo)
		shift := shiftFor(r.IntN(3))
		pt.partitions(seed, shift, lo, ng, gp)
		bt.partitions(seed, shift, lo, ng, wp)
		for i := range gp {
			if gp[i] != wp[i] {
				t.Fatalf("%s group %d: partition %d, want %d", name, lo+i, gp[i], wp[i])
			}
		}
		if pt.memSize() <= 0 {
			t.Fatalf("%s: memSize %d", name, pt.memSize())
		}
	}
	if migrated == 0 || stayed == 0 {
		t.Fatalf("migrated %d, stayed packed %d: a path was not tested", migrated, stayed)
	}
	t.Logf("tables migrated %d, stayed packed %d", migrated, stayed)
}

// TestPackedTableLayouts: Q1's keys pack in one word, two ints and an int with a long in two,
// two longs do not pack; a string longer than the first batch's layout migrates keeping ids.
func TestPackedTableLayouts(t *testing.T) {
	for _, c := range []struct {
		types []sparktype.Type
		words int // 0: not packed
	}{
		{[]sparktype.Type{sparktype.StringType, sparktype.StringType}, 1},
		{[]sparktype.Type{sparktype.StringType}, 1},
		{[]sparktype.Type{sparktype.IntType, sparktype.IntType}, 2},
		{[]sparktype.Type{sparktype.IntType, sparktype.LongType}, 2},
		{[]sparktype.Type{sparktype.LongType, sparktype.LongType}, 0},
		{[]sparktype.Type{sparktype.DoubleType, sparktype.IntType}, 0},
		{[]sparktype.Type{sparktype.DecimalOf(19, 0), sparktype.IntType}, 0},
	} {
		pt, ok := newGroupTable(c.types).(*packedTable)
		if !ok {
			if c.words != 0 {
				t.Errorf("%v: not packed", c.types)
			}
			continue
		}
		cols := make([]arrow.Array, len(c.types))
		for i, ty := range c.types {
			cols[i] = randKeyColumn(rand.New(rand.NewPCG(1, 1)), ty, 10, 1)
		}
		if err := pt.assign(cols, 10, make([]uint32, 10)); err != nil {
			t.Fatal(err)
		}
		if pt.words != c.words || pt.bytes != nil {
			t.Errorf("%v: %d words (migrated %v), want %d", c.types, pt.words, pt.bytes != nil, c.words)
		}
	}
	pt := newPackedTable([]sparktype.Type{sparktype.StringType, sparktype.StringType}, true)
	gids := make([]uint32, 3)
	pt.assign([]arrow.Array{strCol([]string{"A", "N", ""}, []bool{true, true, true}), strCol([]string{"F", "", "x"}, []bool{true, false, true})}, 3, gids)
	// 4 bytes + 3 length bits, 3 bytes + 2 length bits, 2 null bits: 63 bits
	if pt.words != 1 || pt.fields[0].maxLen != 4 || pt.fields[1].maxLen != 3 {
		t.Fatalf("Q1 keys get %d words, %d and %d bytes, want 1, 4 and 3", pt.words, pt.fields[0].maxLen, pt.fields[1].maxLen)
	}
	pt.assign([]arrow.Array{strCol([]string{"long string", "N", ""}, nil), strCol([]string{"F", "F", "x"}, nil)}, 3, gids)
	if pt.bytes == nil || gids[0] != 3 || gids[1] != 4 || gids[2] != 2 {
		t.Fatalf("after a long string: migrated %v, groups %v, want [3 4 2]", pt.bytes != nil, gids)
	}
	// Lengths 3 and 4 OR to 7, over the field's 4 bytes: packStrings' bound is not enough, the
	// exact check keeps the layout.
	pt = newPackedTable([]sparktype.Type{sparktype.StringType, sparktype.StringType}, true)
	pt.assign([]arrow.Array{strCol([]string{"A", "N", ""}, nil), strCol([]string{"F", "", "x"}, nil)}, 3, gids)
	pt.assign([]arrow.Array{strCol([]string{"abc", "abcd", "A"}, nil), strCol([]string{"F", "F", "F"}, nil)}, 3, gids)
	if pt.bytes != nil || gids[0] != 3 || gids[1] != 4 || gids[2] != 0 {
		t.Fatalf("strings of 3 and 4 bytes: migrated %v, groups %v, want [3 4 0]", pt.bytes != nil, gids)
	}
}

// randKeyColumn builds n random values of ty with nulls, from a small domain (plus extremes);
// strings up to maxLen bytes. Sometimes the column is a slice of a longer one.
func randKeyColumn(r *rand.Rand, ty sparktype.Type, n, maxLen int) arrow.Array {
	pad := 0
	if r.IntN(3) == 0 {
		pad = 1 + r.IntN(9)
	}
	b := array.NewBuilder(gomem, ty.Arrow())
	defer b.Release()
	nullRate := r.IntN(4) // 0: no nulls
	for i := 0; i < n+2*pad; i++ {
		if nullRate > 0 && r.IntN(10) < nullRate {
			b.AppendNull()
			continue
		}
		small := int64(r.IntN(5)) - 2
		switch x := b.(type) {
		case *array.BooleanBuilder:
			x.Append(r.IntN(2) == 0)
		case *array.Int8Builder:
			x.Append([]int8{int8(small), math.MinInt8, math.MaxInt8}[r.IntN(3)])
		case *array.Int16Builder:
			x.Append([]int16{int16(small), math.MinInt16, math.MaxInt16}[r.IntN(3)])
		case *array.Int32Builder:
			x.Append([]int32{int32(small), math.MinInt32, math.MaxInt32}[r.IntN(3)])
		case *array.Date32Builder:
			x.Append(arrow.Date32([]int32{int32(small), math.MinInt32, 19000}[r.IntN(3)]))
		case *array.Int64Builder:
			x.Append([]int64{small, math.MinInt64, math.MaxInt64}[r.IntN(3)])
		case *array.TimestampBuilder:
			x.Append(arrow.Timestamp([]int64{small, math.MinInt64, math.MaxInt64}[r.IntN(3)]))
		case *array.Decimal128Builder:
			lim := int64(math.Pow10(int(ty.Precision))) - 1
			x.Append(decimal128.FromI64([]int64{small, lim, -lim}[r.IntN(3)]))
		case *array.StringBuilder:
			x.Append(randKeyString(r, maxLen))
		case *array.BinaryBuilder:
			x.Append([]byte(randKeyString(r, maxLen)))
		default:
			panic(fmt.Sprintf("randKeyColumn: %T", b))
		}
	}
	a := b.NewArray()
	if pad == 0 {
		return a
	}
	defer a.Release()
	return array.NewSlice(a, int64(pad), int64(pad+n))
}

func randKeyString(r *rand.Rand, maxLen int) string {
	l := r.IntN(maxLen + 1)
	if l > 3 && r.IntN(4) != 0 {
		l = r.IntN(4)
	}
	// "\x00" and "\xff" bytes: a string with a trailing zero byte is not its shorter prefix
	return strings.Repeat(string([]byte{"a\x00\xffZ"[r.IntN(4)]}), l)
}
