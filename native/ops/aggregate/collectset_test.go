package aggregate

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// scalaSetVectors are the iteration orders of scala.collection.mutable.HashSet (scala-library
// 2.13.17, Spark 4.1's) after the operations of scalaSetCase, printed by running Scala's class
// (boxed Integers, Longs and Spark's UTF8Strings).
var scalaSetVectors = map[string]string{
	"ints100":   "257,260,-8,263,-11,14,17,-276,20,-279,-282,285,-33,288,-36,291,-39,42,45,-304,48,-307,-310,313,-61,316,-64,-67,70,73,-332,-335,338,341,-89,344,-92,95,98,-357,101,-360,-363,366,-114,369,-117,372,-120,123,126,-385,129,-388,-391,394,-142,397,-145,-148,151,154,-413,-416,419,422,-170,425,-173,176,179,-438,182,-441,-444,447,-195,450,-198,453,-201,204,207,-466,210,-469,-472,475,-223,478,-226,481,-229,232,235,-494,-497,-500,-251,-254",
	"ints11":    "0,18,3,21,6,24,9,27,12,30,15",
	"ints11dup": "0,3,6,9,12,15,18,21,24,27,30",
	"longs":     "-9223372036854775808,9223372036854775807,-1,4294967297,0,4294967296,3,5,17179869187,123456789012345",
	"merge":     "0,577,836,133,-200,1095,200,392,651,-15,910,207,1169,466,725,22,-89,984,281,1243,540,799,96,-163,1058,355,100,614,873,170,1132,429,688,-52,947,244,1206,503,762,59,-126,1021,318",
	"strs":      "é34,é0,é36,é12,é4,漢x45,漢x43,漢x13,漢x39,漢x49,漢x1,é2,漢x21,漢x17,漢x27,é32,,é28,é26,漢x41,é8,é6,é10,漢x15,é14,é38,漢x23,漢x47,漢x25,é30,漢x19",
}

func hashStr(s string) int32 { return sparkhash.Murmur3Bytes([]byte(s), sparkhash.DefaultSeed) }

// scalaSetCase replays a vector's operations on the replica and renders its order.
func scalaSetCase(name string) string {
	ints := func(s *scalaHashSet[int64]) string {
		var b []string
		for _, v := range s.ordered() {
			b = append(b, strconv.FormatInt(v, 10))
		}
		return strings.Join(b, ",")
	}
	switch name {
	case "ints100":
		s := newScalaHashSet[int64]()
		for i := int64(0); i < 100; i++ {
			v := (i*7919)%1000 - 500
			s.add(v, int32(v))
		}
		return ints(s)
	case "ints11", "ints11dup":
		s := newScalaHashSet[int64]()
		for i := int64(0); i < 11; i++ {
			s.add(3*i, int32(3*i))
		}
		if name == "ints11dup" {
			s.add(0, 0) // a duplicate that still grows the table
		}
		return ints(s)
	case "longs":
		s := newScalaHashSet[int64]()
		for _, v := range []int64{1<<32 + 1, 0, 5, -1, -1 << 63, 1<<63 - 1, 1 << 32, 4294967296 + 4294967296*3 + 3, 3, 123456789012345} {
			s.add(v, anyHashLong(v))
		}
		return ints(s)
	case "merge":
		x, y := newScalaHashSet[int64](), newScalaHashSet[int64]()
		for i := int64(0); i < 3; i++ {
			x.add(100*i, int32(100*i))
		}
		for i := int64(0); i < 40; i++ {
			y.add(i*37-200, int32(i*37-200))
		}
		x.addAll(y)
		return ints(x)
	case "strs":
		s := newScalaHashSet[string]()
		for i := 0; i < 30; i++ {
			p := "漢x"
			if i%2 == 0 {
				p = "é"
			}
			v := fmt.Sprintf("%s%d", p, i*13%50)
			s.add(v, hashStr(v))
		}
		s.add("", hashStr(""))
		return strings.Join(s.ordered(), ",")
	}
	return "no case " + name
}

func TestScalaHashSetOrder(t *testing.T) {
	for name, want := range scalaSetVectors {
		if got := scalaSetCase(name); got != want {
			t.Errorf("%s:\n got   %s\n Scala %s", name, got, want)
		}
	}
}

// TestCollectSetModes: Complete over all rows, and Partial over two tasks followed by Final
// (buffers through the serialized bytes), give Scala's orders.
func TestCollectSetModes(t *testing.T) {
	ctx := newCtx()
	var vals []string
	for i := 0; i < 30; i++ {
		p := "漢x"
		if i%2 == 0 {
			p = "é"
		}
		vals = append(vals, fmt.Sprintf("%s%d", p, i*13%50))
	}
	vals = append(vals, "", "é0", "漢x13") // duplicates
	newState := func(mode Mode) function {
		e := &collectTestExpr{ty: sparktype.StringType}
		ex := e.expr(t)
		ex.Class = pkgAgg + "CollectSet"
		spec, err := newCollectSet(ex, &fnContext{mode: mode, singleGroup: true,
			child: []sparktype.Field{{Name: "c", Type: sparktype.StringType, Nullable: true}}})
		if err != nil {
			t.Fatal(err)
		}
		f := spec.newState()
		f.grow(1)
		return f
	}
	render := func(res arrow.Array) string {
		l := res.(*array.List)
		v := l.ListValues().(*array.String)
		var out []string
		for i := 0; i < v.Len(); i++ {
			out = append(out, v.Value(i))
		}
		joined := strings.Join(out, ",") // a copy: Value views the column's buffer
		res.Release()
		return joined
	}
	feed := func(f function, vs []string) {
		in := strCol(vs, nil)
		if err := f.update(ctx, columnar.NewBatch([]arrow.Array{in}, len(vs)), make([]uint32, len(vs))); err != nil {
			t.Fatal(err)
		}
		in.Release()
	}
	c := newState(Complete)
	feed(c, vals)
	res, err := c.result(ctx.Alloc, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := render(res); got != scalaSetVectors["strs"] {
		t.Errorf("complete:\n got   %s\n Scala %s", got, scalaSetVectors["strs"])
	}
	// Two partial sets merged: Scala's order of ++= of the deserialized sets.
	want := newScalaHashSet[string]()
	fin := newState(Final)
	for _, half := range [][]string{vals[:10], vals[10:]} {
		p := newState(Partial)
		feed(p, half)
		bufs, err := p.buffers(ctx.Alloc, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := fin.merge(bufs, []uint32{0}); err != nil {
			t.Fatal(err)
		}
		bufs[0].Release()
		part, other := newScalaHashSet[string](), newScalaHashSet[string]()
		for _, v := range half {
			part.add(v, hashStr(v))
		}
		for _, v := range part.ordered() {
			other.add(v, hashStr(v))
		}
		want.addAll(other)
	}
	if res, err = fin.result(ctx.Alloc, 0, 1); err != nil {
		t.Fatal(err)
	}
	if got, w := render(res), strings.Join(want.ordered(), ","); got != w {
		t.Errorf("partial+final:\n got  %s\n want %s", got, w)
	}
}

func TestCollectSetRefusals(t *testing.T) {
	for _, c := range []struct {
		ty     sparktype.Type
		keyed  bool
		refuse bool
	}{{sparktype.IntType, true, true}, {sparktype.DoubleType, false, true}, {sparktype.BinaryType, false, true},
		{sparktype.DecimalOf(10, 2), false, true}, {sparktype.LongType, false, false}, {sparktype.DateType, false, false}} {
		e := &collectTestExpr{ty: c.ty}
		ex := e.expr(t)
		ex.Class = pkgAgg + "CollectSet"
		_, err := newCollectSet(ex, &fnContext{mode: Partial, singleGroup: !c.keyed,
			child: []sparktype.Field{{Name: "c", Type: c.ty}}})
		if _, ok := err.(*unsupported); ok != c.refuse {
			t.Errorf("collect_set over %s (keys %v): %v, want refused %v", c.ty, c.keyed, err, c.refuse)
		}
	}
}
