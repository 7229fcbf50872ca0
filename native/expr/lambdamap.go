// Higher-order functions over maps: map_filter, transform_values, transform_keys and
// map_zip_with, with Spark's semantics (higherOrderFunctions.scala): a null map gives null
// without evaluating the lambda (k, v) -> ..., which runs once per batch over the flattened
// entries (lambda.go).
//
// transform_keys builds each map through Spark's ArrayBasedMapBuilder rules: a null key raises
// NULL_MAP_KEY; a repeated key raises DUPLICATED_MAP_KEY under spark.sql.mapKeyDedupPolicy
// EXCEPTION (the default) and, under LAST_WIN, keeps the first key's position with the last
// value. Keys are compared as values, so only key types whose Arrow values compare like Spark's
// (integers, booleans, binary-collated strings) are native; float keys (Spark normalizes -0.0
// and NaN), decimals, dates, timestamps and nested keys are refused.
package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	RegisterNested("MapFilter", "map_filter(map, (k, v) -> ...): keeps the entries whose predicate is true; a null map gives null", lambdaMapTranslator(lambdaMapFilter))
	RegisterNested("TransformValues", "transform_values(map, (k, v) -> ...): a null map gives null", lambdaMapTranslator(lambdaMapValues))
	RegisterNested("MapZipWith", "map_zip_with(left, right, (k, v1, v2) -> ...) with integer, boolean or string keys: keys in order of first appearance, a value absent from one map is null", translateLambdaMapZip)
	RegisterNested("TransformKeys", "transform_keys(map, (k, v) -> ...) with integer, boolean or string keys: NULL_MAP_KEY for a null key, DUPLICATED_MAP_KEY or last-wins per spark.sql.mapKeyDedupPolicy", lambdaMapTranslator(lambdaMapKeys))
}

type lambdaMapKind uint8

const (
	lambdaMapFilter lambdaMapKind = iota
	lambdaMapValues
	lambdaMapKeys
)

var lambdaMapNames = [...]string{"map_filter", "transform_values", "transform_keys"}

// lambdaMapDedupKey is the session setting for repeated map keys; the plan encoder passes it
// when it is set (unset means EXCEPTION).
const lambdaMapDedupKey = "spark.sql.mapKeyDedupPolicy"

type lambdaMapFn struct {
	kind     lambdaMapKind
	arg      Expr
	fn       *lambdaFn
	typ      sparktype.Type
	lastWins bool // transform_keys: spark.sql.mapKeyDedupPolicy=LAST_WIN
}

func lambdaMapTranslator(kind lambdaMapKind) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := lambdaMapNames[kind]
		if !e.Deterministic {
			return nil, unsupported("%s with a non-deterministic argument or lambda", name)
		}
		t, err := e.Type()
		if err != nil {
			return nil, err
		}
		arg, err := translateChild(e, "argument", conf)
		if err != nil {
			return nil, err
		}
		if arg.Type().Kind != sparktype.Map || t.Kind != sparktype.Map {
			return nil, unsupported("%s of %s", name, arg.Type())
		}
		fn, err := translateLambda(e, "function", conf, 2)
		if err != nil {
			return nil, err
		}
		ik, iv, _ := arg.Type().KeyValue()
		if !fn.params[0].Equal(ik) || !fn.params[1].Equal(iv) {
			return nil, unsupported("%s: lambda parameters %s, %s for a map of %s", name, fn.params[0], fn.params[1], arg.Type())
		}
		ok, ov, _ := t.KeyValue()
		body := fn.body.Type()
		f := &lambdaMapFn{kind: kind, arg: arg, fn: fn, typ: t}
		switch kind {
		case lambdaMapFilter:
			if body.Kind != sparktype.Boolean || !t.Equal(arg.Type()) {
				return nil, unsupported("map_filter: predicate of %s over %s", body, arg.Type())
			}
		case lambdaMapValues:
			if !ov.Equal(body) || !ok.Equal(ik) {
				return nil, unsupported("transform_values: lambda returns %s for a result of %s", body, t)
			}
		case lambdaMapKeys:
			if !ok.Equal(body) || !ov.Equal(iv) {
				return nil, unsupported("transform_keys: lambda returns %s for a result of %s", body, t)
			}
			switch body.Kind {
			case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long, sparktype.String:
			default:
				return nil, unsupported("transform_keys to keys of type %s", body)
			}
			if body.Kind == sparktype.String && body.Name != "string" {
				return nil, unsupported("transform_keys to keys of type %s", body)
			}
			switch p := strings.ToUpper(strings.TrimSpace(conf.Settings[lambdaMapDedupKey])); p {
			case "", "EXCEPTION":
			case "LAST_WIN":
				f.lastWins = true
			default:
				return nil, unsupported("transform_keys under %s=%s", lambdaMapDedupKey, p)
			}
		}
		return f, nil
	}
}

func (f *lambdaMapFn) Type() sparktype.Type { return f.typ }
func (f *lambdaMapFn) mayFail() bool {
	return f.kind == lambdaMapKeys || mayFail(f.arg) || f.fn.mayFail()
}
func (f *lambdaMapFn) String() string {
	return fmt.Sprintf("%s(%s, %s)", lambdaMapNames[f.kind], f.arg, f.fn)
}

func (f *lambdaMapFn) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return f.evalMasked(ctx, b, nil)
}

func (f *lambdaMapFn) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	a, err := evalActive(ctx, b, f.arg, active)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	l, err := lambdaCheckList(f, a, b.NumRows)
	if err != nil {
		return nil, err
	}
	entries, ok := l.ListValues().(*array.Struct)
	if !ok || entries.NumField() != 2 {
		return nil, fmt.Errorf("%s: map entries are %s", f, l.ListValues().DataType())
	}
	fl := lambdaFlatten(l, active)
	keys, err := fl.gather(ctx.Alloc, entries.Field(0))
	if err != nil {
		return nil, err
	}
	defer keys.Release()
	vals, err := fl.gather(ctx.Alloc, entries.Field(1))
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	out, err := f.fn.eval(ctx, b, fl.parent, []arrow.Array{keys, vals}, len(fl.parent))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	switch f.kind {
	case lambdaMapFilter:
		return f.filter(ctx, fl, entries, out)
	case lambdaMapValues:
		return f.build(ctx.Alloc, fl.live, fl.nlive, fl.starts, keys, out), nil
	}
	return f.rekey(ctx, fl, out, vals)
}

// filter keeps the entries whose predicate is true.
func (f *lambdaMapFn) filter(ctx *exec.TaskContext, fl *lambdaFlat, entries *array.Struct, pred arrow.Array) (arrow.Array, error) {
	p, ok := pred.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("%s: predicate returned %s", f, pred.DataType())
	}
	starts := make([]int32, fl.n+1)
	sel := make([]int32, 0, p.Len())
	for i := 0; i < fl.n; i++ {
		starts[i] = int32(len(sel))
		for k := fl.starts[i]; k < fl.starts[i+1]; k++ {
			if p.IsValid(int(k)) && p.Value(int(k)) {
				sel = append(sel, fl.index[k])
			}
		}
	}
	starts[fl.n] = int32(len(sel))
	kept, err := columnar.Take(ctx.Alloc, entries, sel)
	if err != nil {
		return nil, err
	}
	defer kept.Release()
	return lambdaList(ctx.Alloc, f.typ.Arrow(), fl.live, fl.nlive, starts, kept), nil
}

// build assembles a map column from flat keys and values (the caller keeps its references).
func (f *lambdaMapFn) build(alloc memory.Allocator, live []byte, nlive int, starts []int32, keys, vals arrow.Array) arrow.Array {
	mt := f.typ.Arrow().(*arrow.MapType)
	sd := array.NewData(mt.Elem(), keys.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), vals.Data()}, 0, 0)
	entries := array.MakeFromData(sd)
	sd.Release()
	defer entries.Release()
	return lambdaList(alloc, mt, live, nlive, starts, entries)
}

// rekey builds transform_keys' maps from the new keys, checking for null and repeated keys the way
// Spark's ArrayBasedMapBuilder does, row by row.
func (f *lambdaMapFn) rekey(ctx *exec.TaskContext, fl *lambdaFlat, keys, vals arrow.Array) (arrow.Array, error) {
	keyAt, err := lambdaMapKeyer(keys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	var ksel, vsel []int32 // flat positions of the kept keys and of their values (LAST_WIN only)
	starts := fl.starts
	if f.lastWins {
		starts = make([]int32, fl.n+1)
	}
	seen := map[any]int32{}
	for i := 0; i < fl.n; i++ {
		if f.lastWins {
			starts[i] = int32(len(ksel))
		}
		clear(seen)
		for k := fl.starts[i]; k < fl.starts[i+1]; k++ {
			if keys.IsNull(int(k)) {
				return nil, &exec.SparkError{Class: "NULL_MAP_KEY", Exception: "runtime", Params: map[string]string{}}
			}
			key := keyAt(int(k))
			at, dup := seen[key]
			switch {
			case dup && !f.lastWins:
				return nil, &exec.SparkError{Class: "DUPLICATED_MAP_KEY", Exception: "runtime", Params: map[string]string{
					"key": lambdaMapKeyString(key), "mapKeyDedupPolicy": `"` + lambdaMapDedupKey + `"`}}
			case dup:
				vsel[at] = k
			case f.lastWins:
				seen[key] = int32(len(ksel))
				ksel = append(ksel, k)
				vsel = append(vsel, k)
			default:
				seen[key] = k
			}
		}
	}
	if !f.lastWins {
		return f.build(ctx.Alloc, fl.live, fl.nlive, fl.starts, keys, vals), nil
	}
	starts[fl.n] = int32(len(ksel))
	nk, err := columnar.Take(ctx.Alloc, keys, ksel)
	if err != nil {
		return nil, err
	}
	defer nk.Release()
	nv, err := columnar.Take(ctx.Alloc, vals, vsel)
	if err != nil {
		return nil, err
	}
	defer nv.Release()
	return f.build(ctx.Alloc, fl.live, fl.nlive, starts, nk, nv), nil
}

// lambdaMapKeyer returns the comparable value of each key of a column of integer, boolean or
// string keys.
func lambdaMapKeyer(keys arrow.Array) (func(int) any, error) {
	switch k := keys.(type) {
	case *array.Boolean:
		return func(i int) any { return k.Value(i) }, nil
	case *array.Int8:
		return func(i int) any { return int64(k.Value(i)) }, nil
	case *array.Int16:
		return func(i int) any { return int64(k.Value(i)) }, nil
	case *array.Int32:
		return func(i int) any { return int64(k.Value(i)) }, nil
	case *array.Int64:
		return func(i int) any { return k.Value(i) }, nil
	case *array.String:
		return func(i int) any { return k.Value(i) }, nil
	}
	return nil, fmt.Errorf("keys of type %s", keys.DataType())
}

// lambdaMapKeyString is the key as Spark's error message shows it (the value's toString).
func lambdaMapKeyString(key any) string {
	switch k := key.(type) {
	case bool:
		return strconv.FormatBool(k)
	case int64:
		return strconv.FormatInt(k, 10)
	case string:
		return k
	}
	return fmt.Sprint(key)
}

// lambdaMapZip is map_zip_with(left, right, (k, v1, v2) -> ...): the keys of both maps in order
// of first appearance (left's, then right's new ones), each with the value of its first entry in
// each map (null when absent). Spark matches keys by hash equality for these key types, so the
// same key types as transform_keys are native.
type lambdaMapZip struct {
	left, right Expr
	fn          *lambdaFn
	typ         sparktype.Type
}

func translateLambdaMapZip(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if !e.Deterministic {
		return nil, unsupported("map_zip_with with a non-deterministic argument or lambda")
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	left, err := translateChild(e, "left", conf)
	if err != nil {
		return nil, err
	}
	right, err := translateChild(e, "right", conf)
	if err != nil {
		return nil, err
	}
	if left.Type().Kind != sparktype.Map || right.Type().Kind != sparktype.Map || t.Kind != sparktype.Map {
		return nil, unsupported("map_zip_with of %s and %s", left.Type(), right.Type())
	}
	lk, _, _ := left.Type().KeyValue()
	rk, _, _ := right.Type().KeyValue()
	ok, ov, _ := t.KeyValue()
	if !lk.Equal(rk) || !lk.Equal(ok) {
		return nil, unsupported("map_zip_with of keys %s and %s", lk, rk)
	}
	switch lk.Kind {
	case sparktype.Boolean, sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long:
	case sparktype.String:
		if lk.Name != "string" {
			return nil, unsupported("map_zip_with of keys %s", lk)
		}
	default:
		return nil, unsupported("map_zip_with of keys %s", lk)
	}
	fn, err := translateLambda(e, "function", conf, 3)
	if err != nil {
		return nil, err
	}
	if !ov.Equal(fn.body.Type()) {
		return nil, unsupported("map_zip_with: lambda returns %s for a result of %s", fn.body.Type(), t)
	}
	return &lambdaMapZip{left: left, right: right, fn: fn, typ: t}, nil
}

func (z *lambdaMapZip) Type() sparktype.Type { return z.typ }
func (z *lambdaMapZip) mayFail() bool        { return mayFail(z.left) || mayFail(z.right) || z.fn.mayFail() }
func (z *lambdaMapZip) String() string {
	return fmt.Sprintf("map_zip_with(%s, %s, %s)", z.left, z.right, z.fn)
}

func (z *lambdaMapZip) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return z.evalMasked(ctx, b, nil)
}

func (z *lambdaMapZip) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	la, ra, lm, rm, rightActive, err := lambdaEvalPair(ctx, b, z, z.left, z.right, active)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	defer ra.Release()
	le, lok := lm.ListValues().(*array.Struct)
	re, rok := rm.ListValues().(*array.Struct)
	if !lok || !rok || le.NumField() != 2 || re.NumField() != 2 {
		return nil, fmt.Errorf("%s: map entries are %s and %s", z, lm.ListValues().DataType(), rm.ListValues().DataType())
	}
	lkeys, rkeys := le.Field(0), re.Field(0)
	lkey, err := lambdaMapKeyer(lkeys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", z, err)
	}
	rkey, err := lambdaMapKeyer(rkeys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", z, err)
	}
	lo, ro := listOffsets(lm), listOffsets(rm)
	live := make([]byte, len(rightActive))
	nlive := 0
	starts := make([]int32, n+1)
	var parent []int32
	var keys, v1, v2 []columnar.RowRef // per output entry: its key, left value, right value
	at := map[any]int{}
	for i := 0; i < n; i++ {
		starts[i] = int32(len(parent))
		if !bitutil.BitIsSet(rightActive, i) || !rm.IsValid(i) {
			continue
		}
		bitutil.SetBit(live, i)
		nlive++
		clear(at)
		first := len(parent)
		for k := lo[i]; k < lo[i+1]; k++ {
			if _, dup := at[lkey(int(k))]; dup {
				continue
			}
			at[lkey(int(k))] = len(parent)
			parent = append(parent, int32(i))
			keys = append(keys, columnar.RowRef{Src: 0, Row: uint32(k)})
			v1 = append(v1, columnar.RowRef{Src: 0, Row: uint32(k)})
			v2 = append(v2, columnar.RowRef{Src: columnar.NullSrc})
		}
		for k := ro[i]; k < ro[i+1]; k++ {
			key := rkey(int(k))
			if j, seen := at[key]; seen {
				if j >= first && v2[j].Src == columnar.NullSrc {
					v2[j] = columnar.RowRef{Src: 0, Row: uint32(k)}
				}
				continue
			}
			at[key] = len(parent)
			parent = append(parent, int32(i))
			keys = append(keys, columnar.RowRef{Src: 1, Row: uint32(k)})
			v1 = append(v1, columnar.RowRef{Src: columnar.NullSrc})
			v2 = append(v2, columnar.RowRef{Src: 0, Row: uint32(k)})
		}
	}
	starts[n] = int32(len(parent))
	kc, err := columnar.Gather(ctx.Alloc, []arrow.Array{lkeys, rkeys}, keys)
	if err != nil {
		return nil, err
	}
	defer kc.Release()
	x1, err := columnar.Gather(ctx.Alloc, []arrow.Array{le.Field(1)}, v1)
	if err != nil {
		return nil, err
	}
	defer x1.Release()
	x2, err := columnar.Gather(ctx.Alloc, []arrow.Array{re.Field(1)}, v2)
	if err != nil {
		return nil, err
	}
	defer x2.Release()
	out, err := z.fn.eval(ctx, b, parent, []arrow.Array{kc, x1, x2}, len(parent))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	mt := z.typ.Arrow().(*arrow.MapType)
	sd := array.NewData(mt.Elem(), kc.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{kc.Data(), out.Data()}, 0, 0)
	entries := array.MakeFromData(sd)
	sd.Release()
	defer entries.Release()
	return lambdaList(ctx.Alloc, mt, live, nlive, starts, entries), nil
}
