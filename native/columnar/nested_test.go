package columnar

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/sparktype"
)

var nestedType = sparktype.StructOf(
	sparktype.Field{Name: "a", Type: sparktype.IntType, Nullable: true},
	sparktype.Field{Name: "l", Type: sparktype.ArrayOf(sparktype.StringType, true), Nullable: true},
	sparktype.Field{Name: "m", Type: sparktype.MapOf(sparktype.StringType,
		sparktype.ArrayOf(sparktype.LongType, true), true), Nullable: true},
)

const nestedRows = `[
	{"a": 1, "l": ["x", null, "yy"], "m": [{"key": "k", "value": [1, 2]}, {"key": "j", "value": null}]},
	null,
	{"a": null, "l": [], "m": []},
	{"a": 4, "l": null, "m": null},
	{"a": 5, "l": ["z"], "m": [{"key": "q", "value": [null, 3]}]}
]`

func fromJSON(t *testing.T, alloc memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	a, _, err := array.FromJSON(alloc, dt, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestTakeNested(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	dt := nestedType.Arrow()
	src := fromJSON(t, alloc, dt, nestedRows)
	defer src.Release()
	for _, sel := range [][]int32{{0, 1, 2, 3, 4}, {4, 0}, {1, 3}, {}, {2, 2, 0}} {
		got, err := Take(alloc, src, sel)
		if err != nil {
			t.Fatal(err)
		}
		ok := got.Len() == len(sel)
		for i, j := range sel {
			ok = ok && array.SliceEqual(got, int64(i), int64(i+1), src, int64(j), int64(j+1))
		}
		if !ok {
			t.Errorf("take %v: got %v from %v", sel, got, src)
		}
		got.Release()
	}
	// A slice (what a limit leaves) compacts to the same rows at offset 0.
	sl := array.NewSlice(src, 1, 5)
	defer sl.Release()
	c, err := Compact(alloc, sl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if c.Data().Offset() != 0 || !array.Equal(c, sl) {
		t.Errorf("compact: %v, want %v", c, sl)
	}
}

func TestGatherNested(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	dt := nestedType.Arrow()
	a := fromJSON(t, alloc, dt, nestedRows)
	defer a.Release()
	b := fromJSON(t, alloc, dt, `[{"a": 9, "l": ["b1", "b2"], "m": [{"key": "bk", "value": []}]}]`)
	defer b.Release()
	refs := []RowRef{{1, 0}, {0, 4}, NullRef, {0, 1}, {0, 0}, {1, 0}, {0, 2}}
	got, err := Gather(alloc, []arrow.Array{a, b}, refs)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	srcs := []arrow.Array{a, b}
	for i, r := range refs {
		if r.Src == NullSrc {
			if got.IsValid(i) {
				t.Errorf("row %d: want null", i)
			}
			continue
		}
		if !array.SliceEqual(got, int64(i), int64(i+1), srcs[r.Src], int64(r.Row), int64(r.Row+1)) {
			t.Errorf("row %d: got %v", i, array.NewSlice(got, int64(i), int64(i+1)))
		}
	}
}

// Compact removes offsets below the top level too: a struct whose child is a slice.
func TestCompactNestedOffsets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := array.NewInt32Builder(mem)
	vals.AppendValues([]int32{1, 2, 3, 4, 5}, nil)
	full := vals.NewArray()
	vals.Release()
	child := array.NewSlice(full, 2, 5)
	full.Release()
	st, err := array.NewStructArray([]arrow.Array{child}, []string{"x"})
	child.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release()
	if st.Data().Offset() != 0 || st.Data().Children()[0].Offset() != 2 {
		t.Fatalf("fixture: offsets %d/%d", st.Data().Offset(), st.Data().Children()[0].Offset())
	}
	c, err := Compact(mem, st)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if c.Data().Children()[0].Offset() != 0 || !array.Equal(c, st) {
		t.Fatalf("compact: %v (child offset %d), want %v", c, c.Data().Children()[0].Offset(), st)
	}
}
