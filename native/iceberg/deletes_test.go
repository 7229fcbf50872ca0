package iceberg

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// dvBlob serializes positions the way the Puffin spec's deletion-vector-v1 lays them out.
func dvBlob(t *testing.T, positions []int64) []byte {
	t.Helper()
	byKey := map[uint32]*roaring.Bitmap{}
	var keys []uint32
	for _, p := range positions {
		k := uint32(p >> 32)
		if byKey[k] == nil {
			byKey[k] = roaring.New()
			keys = append(keys, k)
		}
		byKey[k].Add(uint32(p))
	}
	slices.Sort(keys)
	var vec bytes.Buffer
	vec.Write(dvMagic)
	_ = binary.Write(&vec, binary.LittleEndian, uint64(len(keys)))
	for _, k := range keys {
		_ = binary.Write(&vec, binary.LittleEndian, k)
		if _, err := byKey[k].WriteTo(&vec); err != nil {
			t.Fatal(err)
		}
	}
	body := vec.Bytes()
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
}

func TestDeletionVectorRoundTrip(t *testing.T) {
	want := []int64{0, 1, 7, 65535, 65536, 1 << 20, 1<<32 + 3, 5<<32 + 9}
	got, err := decodeDeletionVector(dvBlob(t, want))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	empty, err := decodeDeletionVector(dvBlob(t, nil))
	if err != nil || len(empty) != 0 {
		t.Fatalf("empty vector: %v %v", empty, err)
	}
}

func TestDeletionVectorDamage(t *testing.T) {
	blob := dvBlob(t, []int64{3, 4, 5})
	cases := map[string][]byte{
		"checksum": append(append([]byte(nil), blob[:len(blob)-1]...), blob[len(blob)-1]^1),
		"magic":    func() []byte { b := append([]byte(nil), blob...); b[4] = 0; return b }(),
		"length":   blob[:len(blob)-2],
		"short":    blob[:6],
	}
	for name, b := range cases {
		if _, err := decodeDeletionVector(b); err == nil {
			t.Errorf("%s: damaged vector decoded without error", name)
		}
	}
}

func TestCursorMarksAcrossBatchesAndSeeks(t *testing.T) {
	set := newPositions([]int64{9, 2, 2, 5, 100, 101, 4000})
	c := newCursor(set)
	flags := make([]bool, 10)
	if n := c.mark(0, 10, flags); n != 3 || !flags[2] || !flags[5] || !flags[9] || flags[3] {
		t.Fatalf("first batch: %d %v", n, flags)
	}
	clear(flags)
	if n := c.mark(100, 10, flags); n != 2 || !flags[0] || !flags[1] {
		t.Fatalf("second batch: %d %v", n, flags)
	}
	// A split that starts further on, and one that goes back (a new file reusing the cursor).
	clear(flags)
	if n := c.mark(3995, 10, flags); n != 1 || !flags[5] {
		t.Fatalf("seek forward: %d %v", n, flags)
	}
	clear(flags)
	if n := c.mark(0, 3, flags); n != 1 || !flags[2] {
		t.Fatalf("seek back: %d %v", n, flags)
	}
	if u := union(set, newPositions([]int64{2, 3})); u.Len() != 7 {
		t.Fatalf("union has %d positions", u.Len())
	}
}

func TestEqualitySetNullsAndNaN(t *testing.T) {
	alloc := memory.NewGoAllocator()
	ib := array.NewInt64Builder(alloc)
	ib.AppendValues([]int64{1, 2, 0}, []bool{true, true, false})
	sb := array.NewStringBuilder(alloc)
	sb.AppendValues([]string{"a", "", "x"}, []bool{true, false, true})
	fb := array.NewFloat64Builder(alloc)
	fb.AppendValues([]float64{math.NaN(), 0, 1}, nil)
	del := []arrow.Array{ib.NewArray(), sb.NewArray(), fb.NewArray()}
	set := newEqualitySet([]int32{1, 2, 3})
	if err := set.add(del, 3); err != nil {
		t.Fatal(err)
	}
	// Data: (1,a,NaN) deleted (another NaN payload), (2,null,0) deleted, (2,null,-0) kept (Java's
	// Double.equals tells -0.0 from 0.0), (null,x,1) deleted, (1,b,NaN) kept.
	ib.AppendValues([]int64{1, 2, 2, 0, 1}, []bool{true, true, true, false, true})
	sb.AppendValues([]string{"a", "", "", "x", "b"}, []bool{true, false, false, true, true})
	fb.AppendValues([]float64{math.Float64frombits(0x7ff8000000000123), 0, math.Copysign(0, -1), 1, math.NaN()}, nil)
	data := []arrow.Array{ib.NewArray(), sb.NewArray(), fb.NewArray()}
	flags := make([]bool, 5)
	n, err := set.mark(data, 5, flags)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, true, false}; n != 3 || !slices.Equal(flags, want) {
		t.Fatalf("marked %d: %v, want %v", n, flags, want)
	}
}

func TestNameMapping(t *testing.T) {
	m, err := parseNameMapping(`[{"field-id":1,"names":["id","ident"]},{"field-id":2,"names":["s"]},` +
		`{"names":["unmapped"]},{"field-id":3,"names":["st"],"fields":[{"field-id":4,"names":["x"]},{"names":["y"]}]}]`)
	if err != nil {
		t.Fatal(err)
	}
	if top := m.top; top["id"] != 1 || top["ident"] != 1 || top["s"] != 2 || top["st"] != 3 || len(top) != 4 {
		t.Fatalf("mapping %v", top)
	}
	if st := m.nested["st"]; len(st) != 1 || st[0].ID != 4 || st[0].Names[0] != "x" || len(m.nested["s"]) != 0 {
		t.Fatalf("nested mapping %v", m.nested)
	}
	if _, err := parseNameMapping(`{`); err == nil || !strings.Contains(err.Error(), "name mapping") {
		t.Fatalf("bad mapping: %v", err)
	}
}

// An equality delete the native reader cannot apply is not an error of the data: Open says so with
// an UnsupportedError, on which the scan hands the task to Iceberg Java's reader.
func TestEqualityDeleteOnUnknownFieldIsUnsupported(t *testing.T) {
	scan := &Scan{Columns: []Column{{Name: "id", ID: 1, IcebergType: "long"}}}
	r, err := NewReader(context.Background(), scan, []sparktype.Field{{Name: "id", Type: sparktype.LongType}},
		memory.NewGoAllocator(), 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	task := &Task{Path: "/nowhere/data.parquet", Format: "PARQUET", Deletes: []DeleteFile{
		{Path: "/nowhere/eq.parquet", Content: "EQUALITY_DELETES", Format: "PARQUET", EqualityIDs: []int32{7}}}}
	err = r.Open(task, nil)
	var unsupported *parquet.UnsupportedError
	if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), "field id 7") {
		t.Fatalf("want an UnsupportedError naming field 7, got %v", err)
	}
	r.Close()
}
