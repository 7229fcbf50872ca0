package parquet

import (
	"fmt"
	"math"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// paddedValue is row i's value for the padded-dictionary tests: each row group of 1000 rows has
// its own dictionary, of values up to 16 bytes, up to 32, longer (no padded table), then short
// again, so the table changes width and disappears and comes back between row groups.
func paddedValue(i int) string {
	k := i % 23
	switch (i / 1000) % 4 {
	case 0:
		return strings.Repeat("ab", k%9)[:min(16, 2*(k%9))] // 0 to 16 bytes
	case 1:
		return fmt.Sprintf("%0*d", 17+k%16, k) // 17 to 32 bytes
	case 2:
		return strings.Repeat("x", k*2) // up to 44 bytes
	}
	return []string{"", "\x00", "é", "\x00é\x00", "€😀"}[k%5] // zero and multi-byte runes
}

// TestPaddedDictionaries reads dictionary-encoded strings through the padded tables: optional
// columns with nulls, a required one, the dictionary changing per row group, pages of a few
// hundred bytes, batches that cut pages and row groups.
func TestPaddedDictionaries(t *testing.T) {
	const n = 4321
	str := func(every int) func(int) (pq.Value, any) {
		return func(i int) (pq.Value, any) {
			if isNull(i, every) {
				return pq.NullValue(), nil
			}
			s := paddedValue(i)
			return pq.ByteArrayValue([]byte(s)), s
		}
	}
	cols := []tcol{
		{"s_null3", pq.Optional(enc(pq.String(), &pq.RLEDictionary)), sparktype.StringType, str(3)},
		{"s_null50", pq.Optional(enc(pq.String(), &pq.RLEDictionary)), sparktype.StringType, str(50)},
		{"s_req", pq.Required(enc(pq.String(), &pq.RLEDictionary)), sparktype.StringType, str(0)},
		{"b_null2", pq.Optional(enc(pq.Leaf(pq.ByteArrayType), &pq.RLEDictionary)), sparktype.BinaryType, func(i int) (pq.Value, any) {
			if isNull(i, 2) {
				return pq.NullValue(), nil
			}
			b := []byte(paddedValue(i))
			return pq.ByteArrayValue(b), b
		}},
	}
	for _, v := range []int{1, 2} {
		path := writeFile(t, cols, n, pq.PageBufferSize(300), pq.MaxRowsPerRowGroup(1000), pq.DataPageVersion(v))
		if encs := chunkEncodings(t, path, "s_req"); !strings.Contains(encs, "RLE_DICTIONARY") {
			t.Fatalf("s_req encodings: %s", encs)
		}
		for _, bs := range []int{0, 1, 7, 1000} {
			t.Run(fmt.Sprintf("v%d/batch=%d", v, bs), func(t *testing.T) {
				mem := checkedAlloc(t)
				rows, _ := readAll(t, path, 0, math.MaxInt64, &ScanSpec{Columns: fields(cols), BatchSize: bs}, mem)
				checkRows(t, cols, rows, n)
			})
		}
	}
}

// TestPaddedTable checks the table buildPadded makes (width by the longest value, none past 32
// bytes or for a dictionary too large) and that expandPadded refuses a code outside it.
func TestPaddedTable(t *testing.T) {
	dict := func(vals ...string) *bytesDecoder {
		d := &bytesDecoder{dictOffs: []uint32{0}}
		for _, v := range vals {
			d.dictData = append(d.dictData, v...)
			d.dictOffs = append(d.dictOffs, uint32(len(d.dictData)))
		}
		d.buildPadded(len(vals))
		return d
	}
	for _, tc := range []struct {
		vals []string
		w    int
	}{
		{[]string{"", "a", strings.Repeat("z", 16)}, 16},
		{[]string{"a", strings.Repeat("z", 17)}, 32},
		{[]string{strings.Repeat("z", 32)}, 32},
		{[]string{"a", strings.Repeat("z", 33)}, 0},
	} {
		d := dict(tc.vals...)
		if d.padW != tc.w {
			t.Fatalf("%q: width %d, want %d", tc.vals, d.padW, tc.w)
		}
		for k, v := range tc.vals {
			var got string
			switch d.padW {
			case 16:
				got = string(d.pad16[k][:d.padL[k]])
			case 32:
				got = string(d.pad32[k][:d.padL[k]])
			default:
				continue
			}
			if got != v {
				t.Fatalf("entry %d: %q, want %q", k, got, v)
			}
		}
	}
	if d := dict(make([]string, maxPadded+1)...); d.padW != 0 {
		t.Fatalf("a dictionary of %d values got a padded table", maxPadded+1)
	}

	d := dict("abc", "", "0123456789abcdef")
	offs := make([]int32, 6)
	out := make([]byte, 6*16)
	w, ok := expandPadded(out, d.pad16, d.padL, []int32{2, 0, 1}, offs, []byte{1, 0, 1, 0, 1}, 1)
	if !ok || w != 19 || string(out[:w]) != "0123456789abcdefabc" || fmt.Sprint(offs) != "[0 16 16 19 19 19]" {
		t.Fatalf("expand: %d %v %q %v", w, ok, out[:w], offs)
	}
	for _, idx := range [][]int32{{3}, {-1}} {
		if _, ok := expandPadded(out, d.pad16, d.padL, idx, offs[:2], nil, 0); ok {
			t.Fatalf("code %d accepted", idx[0])
		}
	}
	// a level saying there is a value where the page has no more codes
	if _, ok := expandPadded(out, d.pad16, d.padL, []int32{0}, offs[:3], []byte{1, 1}, 1); ok {
		t.Fatal("more values than codes accepted")
	}
}
