// Map constructors: map(k1, v1, ...) (CreateMap), map_from_arrays, map_from_entries and
// map_concat. All go through Spark's ArrayBasedMapBuilder, whose rules this file reproduces: a
// null key raises NULL_MAP_KEY; a repeated key raises DUPLICATED_MAP_KEY under
// spark.sql.mapKeyDedupPolicy=EXCEPTION (the default) or, under LAST_WIN, keeps the first key's
// position with the last value. Float and double keys are refused: the builder normalizes them
// (-0.0 to 0.0, NaN bits) only when a duplicate forces it to rebuild the map, which is not worth
// reproducing. Errors are raised only on the rows Spark evaluates (evalMasked).
//
// Each row's candidate entries are references (source column, row) for the key and the value;
// one typed pass per key type deduplicates them, and two gathers lay out keys and values.
package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

type mapCreateKind int

const (
	mapCreatePairs mapCreateKind = iota // CreateMap
	mapCreateArrays
	mapCreateEntries
	mapCreateConcat
)

var mapCreateNames = [...]string{"map", "map_from_arrays", "map_from_entries", "map_concat"}

func init() {
	RegisterNested("CreateMap", "map(k1, v1, ...): null keys raise NULL_MAP_KEY, duplicates follow spark.sql.mapKeyDedupPolicy (float keys stay in Spark)", mapCreateTranslator(mapCreatePairs))
	RegisterNested("MapFromArrays", "map_from_arrays(keys, values): arrays of different sizes raise as in Spark, duplicates follow spark.sql.mapKeyDedupPolicy", mapCreateTranslator(mapCreateArrays))
	RegisterNested("MapFromEntries", "map_from_entries(arr of structs): null if an entry is null, duplicates follow spark.sql.mapKeyDedupPolicy", mapCreateTranslator(mapCreateEntries))
	RegisterNested("MapConcat", "map_concat(m1, m2, ...): null if any map is null, duplicates follow spark.sql.mapKeyDedupPolicy", mapCreateTranslator(mapCreateConcat))
}

type mapCreateExpr struct {
	kind     mapCreateKind
	args     []Expr
	typ      sparktype.Type
	key      sparktype.Type
	lastWins bool
}

const mapKeyDedupPolicyKey = "spark.sql.mapKeyDedupPolicy"

func mapCreateTranslator(kind mapCreateKind) Translator {
	return func(e *plan.Expr, conf *plan.Conf) (Expr, error) {
		name := mapCreateNames[kind]
		m := &mapCreateExpr{kind: kind}
		var err error
		switch kind {
		case mapCreatePairs, mapCreateConcat:
			m.args, err = translateChildren(e, "children", conf)
		case mapCreateArrays:
			var k, v Expr
			if k, err = translateChild(e, "left", conf); err == nil {
				if v, err = translateChild(e, "right", conf); err == nil {
					m.args = []Expr{k, v}
				}
			}
		case mapCreateEntries:
			var c Expr
			if c, err = translateChild(e, "child", conf); err == nil {
				m.args = []Expr{c}
			}
		}
		if err != nil {
			return nil, err
		}
		if m.typ, err = e.Type(); err != nil {
			return nil, err
		}
		if m.typ.Kind != sparktype.Map {
			return nil, unsupported("%s returning %s", name, m.typ)
		}
		if len(m.args) == 0 {
			return nil, unsupported("%s without arguments is not supported natively", name)
		}
		key, val, _ := m.typ.KeyValue()
		if !arrEqualityElem(key) || key.IsFloating() {
			return nil, unsupported("%s with %s keys is not supported natively", name, key)
		}
		m.key = key
		if err := m.checkArgs(key, val); err != nil {
			return nil, err
		}
		policy := ""
		if conf != nil {
			policy = strings.ToUpper(strings.TrimSpace(conf.Settings[mapKeyDedupPolicyKey]))
		}
		switch policy {
		case "", "EXCEPTION":
		case "LAST_WIN":
			m.lastWins = true
		default:
			return nil, unsupported("%s under %s=%s", name, mapKeyDedupPolicyKey, policy)
		}
		return m, nil
	}
}

// checkArgs refuses arguments whose key or value types differ from the result's (the gathers
// need one Arrow type per column).
func (m *mapCreateExpr) checkArgs(key, val sparktype.Type) error {
	name := mapCreateNames[m.kind]
	bad := func(a Expr) error { return unsupported("%s argument %s of type %s for %s", name, a, a.Type(), m.typ) }
	switch m.kind {
	case mapCreatePairs:
		if len(m.args)%2 != 0 {
			return unsupported("map with %d arguments", len(m.args))
		}
		for i, a := range m.args {
			want := key
			if i%2 == 1 {
				want = val
			}
			if !a.Type().Equal(want) || a.Type().Kind == sparktype.String && a.Type().Name != want.Name {
				return bad(a)
			}
		}
	case mapCreateArrays:
		ke, ok1 := arrElem(m.args[0].Type())
		ve, ok2 := arrElem(m.args[1].Type())
		if !ok1 || !ok2 || !ke.Equal(key) || !ve.Equal(val) {
			return bad(m.args[0])
		}
	case mapCreateEntries:
		st, ok := arrElem(m.args[0].Type())
		if !ok || st.Kind != sparktype.Struct || len(st.Fields()) != 2 ||
			!st.Fields()[0].Type.Equal(key) || !st.Fields()[1].Type.Equal(val) {
			return bad(m.args[0])
		}
	case mapCreateConcat:
		for _, a := range m.args {
			k, v, _ := a.Type().KeyValue()
			if a.Type().Kind != sparktype.Map || !k.Equal(key) || !v.Equal(val) {
				return bad(a)
			}
		}
	}
	return nil
}

func (m *mapCreateExpr) Type() sparktype.Type { return m.typ }
func (m *mapCreateExpr) mayFail() bool        { return true }
func (m *mapCreateExpr) String() string {
	return fmt.Sprintf("%s(%s)", mapCreateNames[m.kind], joinExprs(m.args))
}

func (m *mapCreateExpr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return m.evalMasked(ctx, b, nil)
}

// mapCreateIn is one batch's candidate entries: per row, references to keys and values (in the
// order Spark puts them), or a null row.
type mapCreateIn struct {
	keySrcs, valSrcs []arrow.Array
	rowStart         []int32 // n+1 offsets into keyRefs/valRefs
	keyRefs, valRefs []columnar.RowRef
	nullRow          []bool
}

func (m *mapCreateExpr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	cols := make([]arrow.Array, 0, len(m.args))
	defer func() { releaseArrays(cols) }()
	for _, a := range m.args {
		c, err := evalActive(ctx, b, a, active)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
		if c.Len() != n {
			return nil, fmt.Errorf("%s: %s returned %d rows for %d", m, a, c.Len(), n)
		}
	}
	in := &mapCreateIn{rowStart: make([]int32, 1, n+1), nullRow: make([]bool, n)}
	if err := m.candidates(in, cols, active, n); err != nil {
		return nil, err
	}
	keys := make([]any, len(in.keySrcs))
	for j, s := range in.keySrcs {
		k, err := arrKeysOf(s, m.key, arrJavaEquals)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		keys[j] = k
	}
	var kOut, vOut []columnar.RowRef
	var offs []int32
	var err error
	switch keys[0].(type) {
	case []uint64:
		kOut, vOut, offs, err = mapCreateDedup(m, in, mapCreateKeyCols[uint64](keys), n)
	case []string:
		kOut, vOut, offs, err = mapCreateDedup(m, in, mapCreateKeyCols[string](keys), n)
	case []decimal128.Num:
		kOut, vOut, offs, err = mapCreateDedup(m, in, mapCreateKeyCols[decimal128.Num](keys), n)
	}
	if err != nil {
		return nil, err
	}
	return m.build(ctx.Alloc, in, kOut, vOut, offs, n)
}

func mapCreateKeyCols[K arrKey](keys []any) [][]K {
	out := make([][]K, len(keys))
	for j, k := range keys {
		out[j] = k.([]K)
	}
	return out
}

// candidates fills in with every row's entries in Spark's insertion order. Rows that are not
// active, or null by the function's rules, are marked null.
func (m *mapCreateExpr) candidates(in *mapCreateIn, cols []arrow.Array, active []byte, n int) error {
	switch m.kind {
	case mapCreatePairs:
		for j := 0; j < len(cols); j += 2 {
			in.keySrcs = append(in.keySrcs, cols[j])
			in.valSrcs = append(in.valSrcs, cols[j+1])
		}
		for i := 0; i < n; i++ {
			if isActive(active, i) {
				for j := range in.keySrcs {
					r := columnar.RowRef{Src: uint32(j), Row: uint32(i)}
					in.keyRefs = append(in.keyRefs, r)
					in.valRefs = append(in.valRefs, r)
				}
			} else {
				in.nullRow[i] = true
			}
			in.rowStart = append(in.rowStart, int32(len(in.keyRefs)))
		}
	case mapCreateArrays:
		kl, ok1 := cols[0].(listArray)
		vl, ok2 := cols[1].(listArray)
		if !ok1 || !ok2 {
			return fmt.Errorf("%s: arguments are %s and %s", m, cols[0].DataType(), cols[1].DataType())
		}
		in.keySrcs, in.valSrcs = []arrow.Array{kl.ListValues()}, []arrow.Array{vl.ListValues()}
		ko, vo := listOffsets(kl), listOffsets(vl)
		for i := 0; i < n; i++ {
			if !isActive(active, i) || kl.IsNull(i) || vl.IsNull(i) {
				in.nullRow[i] = true
			} else if ko[i+1]-ko[i] != vo[i+1]-vo[i] {
				return &exec.SparkError{Class: "_LEGACY_ERROR_TEMP_2128", Exception: "runtime", Params: map[string]string{}}
			} else {
				for k := int32(0); k < ko[i+1]-ko[i]; k++ {
					in.keyRefs = append(in.keyRefs, columnar.RowRef{Row: uint32(ko[i] + k)})
					in.valRefs = append(in.valRefs, columnar.RowRef{Row: uint32(vo[i] + k)})
				}
			}
			in.rowStart = append(in.rowStart, int32(len(in.keyRefs)))
		}
	case mapCreateEntries:
		l, ok := cols[0].(listArray)
		st, ok2 := l.ListValues().(*array.Struct)
		if !ok || !ok2 || st.NumField() != 2 {
			return fmt.Errorf("%s: argument is %s", m, cols[0].DataType())
		}
		in.keySrcs, in.valSrcs = []arrow.Array{st.Field(0)}, []arrow.Array{st.Field(1)}
		offs := listOffsets(l)
		for i := 0; i < n; i++ {
			nullRow := !isActive(active, i) || l.IsNull(i)
			for k := offs[i]; !nullRow && k < offs[i+1]; k++ {
				nullRow = st.IsNull(int(k))
			}
			if nullRow {
				in.nullRow[i] = true
			} else {
				for k := offs[i]; k < offs[i+1]; k++ {
					in.keyRefs = append(in.keyRefs, columnar.RowRef{Row: uint32(k)})
					in.valRefs = append(in.valRefs, columnar.RowRef{Row: uint32(k)})
				}
			}
			in.rowStart = append(in.rowStart, int32(len(in.keyRefs)))
		}
	case mapCreateConcat:
		ms := make([]*array.Map, len(cols))
		mo := make([][]int32, len(cols))
		for j, c := range cols {
			mp, ok := c.(*array.Map)
			if !ok {
				return fmt.Errorf("%s: argument is %s", m, c.DataType())
			}
			// The entries struct's fields, not Keys()/Items(): those ignore a sliced struct's offset.
			st, ok := mp.ListValues().(*array.Struct)
			if !ok || st.NumField() != 2 {
				return fmt.Errorf("%s: map entries are %s", m, mp.ListValues().DataType())
			}
			ms[j], mo[j] = mp, listOffsets(mp)
			in.keySrcs = append(in.keySrcs, st.Field(0))
			in.valSrcs = append(in.valSrcs, st.Field(1))
		}
		for i := 0; i < n; i++ {
			nullRow := !isActive(active, i)
			for _, mp := range ms {
				nullRow = nullRow || mp.IsNull(i)
			}
			if nullRow {
				in.nullRow[i] = true
			} else {
				for j := range ms {
					for k := mo[j][i]; k < mo[j][i+1]; k++ {
						r := columnar.RowRef{Src: uint32(j), Row: uint32(k)}
						in.keyRefs = append(in.keyRefs, r)
						in.valRefs = append(in.valRefs, r)
					}
				}
			}
			in.rowStart = append(in.rowStart, int32(len(in.keyRefs)))
		}
	}
	return nil
}

// mapCreateDedup applies the builder's rules to each row's candidates: the kept key and value
// references and the output offsets.
func mapCreateDedup[K arrKey](m *mapCreateExpr, in *mapCreateIn, keys [][]K, n int) (kOut, vOut []columnar.RowRef, offs []int32, err error) {
	kOut = make([]columnar.RowRef, 0, len(in.keyRefs))
	vOut = make([]columnar.RowRef, 0, len(in.valRefs))
	offs = make([]int32, 1, n+1)
	index := map[K]int{}
	for i := 0; i < n; i++ {
		if !in.nullRow[i] {
			clear(index)
			start := len(kOut)
			for c := in.rowStart[i]; c < in.rowStart[i+1]; c++ {
				kr, vr := in.keyRefs[c], in.valRefs[c]
				if in.keySrcs[kr.Src].IsNull(int(kr.Row)) {
					return nil, nil, nil, &exec.SparkError{Class: "NULL_MAP_KEY", Exception: "runtime", Params: map[string]string{}}
				}
				key := keys[kr.Src][kr.Row]
				if at, dup := index[key]; dup {
					if !m.lastWins {
						return nil, nil, nil, &exec.SparkError{Class: "DUPLICATED_MAP_KEY", Exception: "runtime",
							Params: map[string]string{"key": mapCreateKeyText(in.keySrcs[kr.Src], int(kr.Row)),
								"mapKeyDedupPolicy": `"` + mapKeyDedupPolicyKey + `"`}}
					}
					vOut[start+at] = vr
					continue
				}
				if len(kOut)-start >= arrMaxLength {
					return nil, nil, nil, &exec.SparkError{Class: "COLLECTION_SIZE_LIMIT_EXCEEDED.INITIALIZE", Exception: "runtime",
						Params: map[string]string{"numberOfElements": fmt.Sprint(len(kOut) - start), "maxRoundedArrayLength": fmt.Sprint(arrMaxLength)}}
				}
				index[key] = len(kOut) - start
				kOut = append(kOut, kr)
				vOut = append(vOut, vr)
			}
		}
		offs = append(offs, int32(len(kOut)))
	}
	return kOut, vOut, offs, nil
}

// mapCreateKeyText is the key as Spark's message shows it (its toString).
func mapCreateKeyText(a arrow.Array, i int) string {
	switch x := a.(type) {
	case *array.String:
		return x.Value(i)
	case *array.Boolean:
		return fmt.Sprint(x.Value(i))
	case *array.Int8:
		return fmt.Sprint(x.Value(i))
	case *array.Int16:
		return fmt.Sprint(x.Value(i))
	case *array.Int32:
		return fmt.Sprint(x.Value(i))
	case *array.Int64:
		return fmt.Sprint(x.Value(i))
	}
	return a.ValueStr(i)
}

func (m *mapCreateExpr) build(alloc memory.Allocator, in *mapCreateIn, kOut, vOut []columnar.RowRef, offs []int32, n int) (arrow.Array, error) {
	mt := m.typ.Arrow().(*arrow.MapType)
	gather := func(srcs []arrow.Array, refs []columnar.RowRef, dt arrow.DataType) (arrow.ArrayData, error) {
		var a arrow.Array
		if len(refs) == 0 {
			a = array.MakeArrayOfNull(alloc, dt, 0)
		} else {
			var err error
			if a, err = columnar.Gather(alloc, srcs, refs); err != nil {
				return nil, fmt.Errorf("%s: %w", m, err)
			}
		}
		d := a.Data()
		d.Retain()
		a.Release()
		return d, nil
	}
	kd, err := gather(in.keySrcs, kOut, mt.KeyType())
	if err != nil {
		return nil, err
	}
	defer kd.Release()
	vd, err := gather(in.valSrcs, vOut, mt.ItemType())
	if err != nil {
		return nil, err
	}
	defer vd.Release()
	sd := array.NewData(mt.Elem(), len(kOut), []*memory.Buffer{nil}, []arrow.ArrayData{kd, vd}, 0, 0)
	defer sd.Release()
	offBuf, o := newFixed[int32](alloc, n+1)
	copy(o, offs)
	var vbuf *memory.Buffer
	nulls := 0
	for _, isNull := range in.nullRow {
		if isNull {
			nulls++
		}
	}
	if nulls > 0 {
		var vb []byte
		vbuf, vb = newBitmap(alloc, n)
		for i, isNull := range in.nullRow {
			if !isNull {
				bitutil.SetBit(vb, i)
			}
		}
	}
	d := array.NewData(mt, n, []*memory.Buffer{vbuf, offBuf}, []arrow.ArrayData{sd}, nulls, 0)
	offBuf.Release()
	if vbuf != nil {
		vbuf.Release()
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}
