package aggregate

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
)

// The reference model below follows BitmapExpressionUtils (bitmapMerge, bitmapAndMerge) and
// BitmapConstructAgg.update byte for byte over Java byte arrays.

func refOr(buf, in []byte) {
	for i := 0; i < min(len(buf), len(in)); i++ {
		buf[i] |= in[i]
	}
}

func refAnd(buf, in []byte) {
	for i := 0; i < min(len(buf), len(in)); i++ {
		buf[i] &= in[i]
	}
	for i := len(in); i < len(buf); i++ {
		buf[i] = 0
	}
}

func binCol(vals [][]byte, valid []bool) arrow.Array {
	b := array.NewBinaryBuilder(gomem, arrow.BinaryTypes.Binary)
	defer b.Release()
	for i, v := range vals {
		if valid != nil && !valid[i] {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	return b.NewArray()
}

type bitmapRow struct {
	k   int64
	pos *int64
	bm  []byte // nil: null
}

func bitmapRows() []bitmapRow {
	var rows []bitmapRow
	p := func(v int64) *int64 { return &v }
	full := bytes.Repeat([]byte{0xff}, bitmapBytes)
	long := bytes.Repeat([]byte{0x5a}, bitmapBytes+10)
	for i := 0; i < 900; i++ {
		k := int64(i % 7)
		r := bitmapRow{k: k}
		if i%5 != 0 {
			r.pos = p(int64((i * 37) % bitmapBits))
		}
		switch i % 11 {
		case 0:
			r.bm = nil
		case 1:
			r.bm = []byte{}
		case 2:
			r.bm = []byte{byte(i), 0x81, 0x0f}
		case 3:
			r.bm = full
		case 4:
			r.bm = long
		default:
			bm := make([]byte, bitmapBytes)
			bm[i%bitmapBytes] = byte(i)
			bm[0] = byte(i * 3)
			r.bm = bm
		}
		// group 6's and-input: only full bitmaps or nulls, so the and keeps bits.
		if k == 6 && r.bm != nil {
			r.bm = full
		}
		// group 4's: full bitmaps but for a few 3-byte ones, which clear all but the first 3 bytes.
		if k == 4 && r.bm != nil {
			if i%11 == 2 {
				r.bm = []byte{0xff, 0xfe, 0x7f}
			} else {
				r.bm = full
			}
		}
		if k == 5 {
			r.bm = nil // a group with only null bitmaps keeps the initial 0xFF bitmap
		}
		rows = append(rows, r)
	}
	rows[3].pos = p(bitmapBits - 1)
	rows[4].pos = p(0)
	return rows
}

func bitmapBatches(rows []bitmapRow, size int) []*columnar.Batch {
	var out []*columnar.Batch
	for lo := 0; lo < len(rows); lo += size {
		hi := min(lo+size, len(rows))
		var ks, ps []int64
		var pv, bv []bool
		var bms [][]byte
		for _, r := range rows[lo:hi] {
			ks = append(ks, r.k)
			if r.pos != nil {
				ps, pv = append(ps, *r.pos), append(pv, true)
			} else {
				ps, pv = append(ps, 0), append(pv, false)
			}
			bms, bv = append(bms, r.bm), append(bv, r.bm != nil)
		}
		out = append(out, columnar.NewBatch([]arrow.Array{i64Col(ks, nil), i64Col(ps, pv), binCol(bms, bv)}, hi-lo))
	}
	return out
}

var bitmapIn = []col{{"k", "long", 1}, {"pos", "long", 2}, {"bm", "binary", 3}}

var bitmapFns = []aggFn{
	{class: "BitmapConstructAgg", args: []int{1}, result: "binary", buffers: []string{"binary"}},
	{class: "BitmapOrAgg", args: []int{2}, result: "binary", buffers: []string{"binary"}},
	{class: "BitmapAndAgg", args: []int{2}, result: "binary", buffers: []string{"binary"}},
}

func bitmapWant(rows []bitmapRow) map[int64][]any {
	type st struct{ c, o, a []byte }
	m := map[int64]*st{}
	for _, r := range rows {
		s := m[r.k]
		if s == nil {
			s = &st{make([]byte, bitmapBytes), make([]byte, bitmapBytes), bytes.Repeat([]byte{0xff}, bitmapBytes)}
			m[r.k] = s
		}
		if r.pos != nil {
			s.c[*r.pos/8] |= 1 << (*r.pos % 8)
		}
		if r.bm != nil {
			refOr(s.o, r.bm)
			refAnd(s.a, r.bm)
		}
	}
	want := map[int64][]any{}
	for k, s := range m {
		want[k] = []any{k, string(s.c), string(s.o), string(s.a)}
	}
	return want
}

func checkBitmapRows(t *testing.T, what string, got [][]any, want map[int64][]any) {
	t.Helper()
	if w := want[4][3].(string); w[:4] != "\xff\xfe\x7f\x00" {
		t.Fatalf("the model's and of group 4 starts with %x", w[:4])
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d groups, want %d", what, len(got), len(want))
	}
	for _, r := range got {
		w := want[r[0].(int64)]
		if !reflect.DeepEqual(r, w) {
			t.Errorf("%s: group %v differs", what, r[0])
		}
	}
}

// TestBitmapAggregates: the three functions per group, in one stage and split into partial and
// final stages (the partial buffers are Spark's: 4096-byte bitmaps), against the byte model.
func TestBitmapAggregates(t *testing.T) {
	rows := bitmapRows()
	want := bitmapWant(rows)
	p := buildPlans(t, bitmapIn, []int{0}, bitmapFns)
	schema := fieldsOf(t, bitmapIn)

	c, err := run(t, p.complete, schema, bitmapBatches(rows, 64))
	if err != nil {
		t.Fatal(err)
	}
	checkBitmapRows(t, "complete", rowsOf(c), want)
	release(c)

	part, err := run(t, p.partial, schema, bitmapBatches(rows, 100))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rowsOf(part) {
		for _, v := range r[1:] {
			if len(v.(string)) != bitmapBytes {
				t.Fatalf("partial buffer of %d bytes", len(v.(string)))
			}
		}
	}
	f, err := run(t, p.final, p.partialSchema, part)
	if err != nil {
		t.Fatal(err)
	}
	checkBitmapRows(t, "partial+final", rowsOf(f), want)
	release(f)
	release(part)
}

// TestBitmapAggregatesEmpty: without keys and without rows, the result is the initial bitmap.
func TestBitmapAggregatesEmpty(t *testing.T) {
	p := buildPlans(t, bitmapIn, nil, bitmapFns)
	out, err := run(t, p.complete, fieldsOf(t, bitmapIn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release(out)
	got := rowsOf(out)
	want := [][]any{{string(make([]byte, bitmapBytes)), string(make([]byte, bitmapBytes)),
		string(bytes.Repeat([]byte{0xff}, bitmapBytes))}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("empty input: got %d rows, want the initial bitmaps", len(got))
	}
}

// TestBitmapConstructPosition: positions outside [0, 32768) raise INVALID_BITMAP_POSITION with
// Spark's parameters; a null position is skipped.
func TestBitmapConstructPosition(t *testing.T) {
	for _, pos := range []int64{-1, bitmapBits, 1 << 40, -1 << 63} {
		p := buildPlans(t, bitmapIn, nil, bitmapFns[:1])
		b := columnar.NewBatch([]arrow.Array{i64Col([]int64{1, 1}, nil), i64Col([]int64{3, pos}, nil),
			binCol([][]byte{nil, nil}, []bool{false, false})}, 2)
		_, err := run(t, p.complete, fieldsOf(t, bitmapIn), []*columnar.Batch{b})
		se, ok := exec.AsSparkError(err)
		if !ok || se.Class != "INVALID_BITMAP_POSITION" || se.Params["bitmapNumBytes"] != "4096" ||
			se.Params["bitmapNumBits"] != "32768" || se.Params["bitPosition"] != invalidBitmapPosition(pos).(*exec.SparkError).Params["bitPosition"] {
			t.Errorf("position %d: got %v", pos, err)
		}
	}
}

// TestBitmapRefusesOtherTypes: bitmap_or_agg over a non-binary child stays in Spark.
func TestBitmapRefusesOtherTypes(t *testing.T) {
	fn := aggFn{class: "BitmapOrAgg", args: []int{1}, result: "binary", buffers: []string{"binary"}}
	p := buildPlans(t, bitmapIn, nil, []aggFn{fn})
	_, err := New(p.complete, &source{schema: fieldsOf(t, bitmapIn)}, &plan.Conf{ANSI: true})
	if err == nil {
		t.Fatal("bitmap_or_agg over long was accepted")
	}
}
