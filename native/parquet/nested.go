package parquet

// Nested columns: structs, lists and maps, read by assembling the definition and repetition
// levels of their leaf columns (Dremel). Every leaf is decoded by the flat machinery (cursor and
// decoder of column.go) over its "slots": the level entries that hold an element of the leaf's
// innermost list (or a record, outside lists), present when the definition level is the leaf's
// maximum. The levels of the first leaf under each struct, list or map give that node's length,
// validity and offsets. Batches end on record boundaries (repetition level 0).
//
// Shapes follow Spark's reading of Parquet (ParquetReadSupport's clipping and the LogicalTypes
// spec's backward-compatibility rules): a LIST-annotated group's repeated child is the element
// itself when it is primitive, has several fields, or is named "array" or "<list>_tuple";
// otherwise its only field is the element (the standard 3-level layout); an unannotated repeated
// field is a required list of required elements; a MAP (or MAP_KEY_VALUE) group's repeated child
// holds the key and the value. A shape outside these is left to Spark (UnsupportedError).

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// pnode is a node of the file schema tree.
type pnode struct {
	name string
	path string // dotted, for errors
	id   int32
	rep  format.FieldRepetitionType
	el   *format.SchemaElement
	kids []*pnode
	leaf *leafInfo // primitives
	def  byte      // definition level of the node (optional and repeated nodes down to it, itself included)
	lvl  byte      // repetition level of the node (repeated nodes down to it, itself included)
}

// fileNodes parses the top-level fields of the schema as trees (once per file).
func (s *fileSchema) fileNodes() ([]*pnode, error) {
	if s.nodes != nil || len(s.els) == 0 {
		return s.nodes, nil
	}
	root := &s.els[0]
	pos, leaf := 1, 0
	n := 0
	if root.NumChildren.Valid {
		n = int(root.NumChildren.V)
	}
	nodes := make([]*pnode, 0, n)
	for i := 0; i < n; i++ {
		nd, next, err := parseNode(s.els, pos, &leaf, "", 0, 0, 0)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, nd)
		pos = next
	}
	s.nodes = nodes
	return nodes, nil
}

func parseNode(els []format.SchemaElement, pos int, leaf *int, parent string, def, lvl byte, depth int) (*pnode, int, error) {
	if depth > 100 || pos >= len(els) {
		return nil, 0, fmt.Errorf("corrupt schema: nesting deeper than 100 or too few elements")
	}
	el := &els[pos]
	nd := &pnode{name: el.Name, path: el.Name, id: el.FieldID, rep: format.Required, el: el}
	if parent != "" {
		nd.path = parent + "." + el.Name
	}
	if el.RepetitionType.Valid {
		nd.rep = el.RepetitionType.V
	}
	switch nd.rep {
	case format.Optional:
		def++
	case format.Repeated:
		def++
		lvl++
	}
	nd.def, nd.lvl = def, lvl
	pos++
	if !el.NumChildren.Valid || el.NumChildren.V <= 0 {
		if !el.Type.Valid {
			return nil, 0, fmt.Errorf("corrupt schema: element %q has neither type nor children", el.Name)
		}
		l := &leafInfo{name: nd.path, index: *leaf, phys: el.Type.V, maxDef: def}
		if el.TypeLength.Valid {
			l.typeLen = int(el.TypeLength.V)
		}
		classify(el, l)
		*leaf++
		nd.leaf = l
		return nd, pos, nil
	}
	for i := 0; i < int(el.NumChildren.V); i++ {
		k, next, err := parseNode(els, pos, leaf, nd.path, def, lvl, depth+1)
		if err != nil {
			return nil, 0, err
		}
		nd.kids = append(nd.kids, k)
		pos = next
	}
	return nd, pos, nil
}

func (p *pnode) isList() bool {
	if _, ok := p.el.LogicalType.Value.(*format.ListType); ok {
		return true
	}
	return p.el.ConvertedType.Valid && p.el.ConvertedType.V == deprecated.List
}

func (p *pnode) isMap() bool {
	if _, ok := p.el.LogicalType.Value.(*format.MapType); ok {
		return true
	}
	return p.el.ConvertedType.Valid && (p.el.ConvertedType.V == deprecated.Map || p.el.ConvertedType.V == deprecated.MapKeyValue)
}

// nnode is a node of an output column: a struct, list or map built from levels, or a leaf.
type nnode struct {
	kind sparktype.Kind // Struct, Array, Map; anything else is a leaf
	typ  sparktype.Type
	dt   arrow.DataType
	// An entry of the node exists at a level where rep <= slotRep and def >= slotDef; it is
	// valid (not null) where def >= validDef.
	slotRep, slotDef, validDef byte
	kids                       []*nnode // struct fields (nil: absent from the file), list element, map entries
	// defaults: per struct field absent from the file, its initial default (fieldid.go); nil
	// when every absent field reads as null.
	defaults []any
	leaf     *nleaf
	first    *nleaf // the leaf whose levels give this node's shape
}

// fieldType is the Spark type of struct field i.
func (x *nnode) fieldType(i int) sparktype.Type { return x.typ.Fields()[i].Type }

// nleaf is one leaf column of a nested column.
type nleaf struct {
	col    column
	ls     levelStream
	reps   []byte // levels of the batch being read
	defs   []byte
	vals   arrow.Array // slots of the batch
	pieces []arrow.Array
}

// levelStream is the cursor's hook for a nested leaf: the levels of the current page, and the
// slot definition levels the decoder reads as if they were a flat column's.
type levelStream struct {
	slotRep, slotDef byte
	maxRep           byte
	reps, defs       []byte
	n, pos           int // levels in the page, next level to assemble
	slots            []byte
	zeros            []byte
}

// page is called by cursor.load for every page of a nested leaf.
func (ls *levelStream) page(c *cursor, p pq.Page) error {
	n := int(p.NumValues())
	ls.reps, ls.defs = p.RepetitionLevels(), p.DefinitionLevels()
	if ls.maxRep == 0 || c.maxDef == 0 {
		if cap(ls.zeros) < n {
			ls.zeros = make([]byte, n)
		}
		z := ls.zeros[:n]
		clear(z)
		if ls.maxRep == 0 {
			ls.reps = z
		}
		if c.maxDef == 0 {
			ls.defs = z
		}
	}
	if len(ls.reps) != n || len(ls.defs) != n {
		return fmt.Errorf("page has %d values but %d repetition and %d definition levels: %w", n, len(ls.reps), len(ls.defs), pq.ErrCorrupted)
	}
	ls.n, ls.pos = n, 0
	slots := ls.slots[:0]
	sr, sd := ls.slotRep, ls.slotDef
	for i, r := range ls.reps {
		if d := ls.defs[i]; r <= sr && d >= sd {
			slots = append(slots, d)
		}
	}
	ls.slots = slots
	c.def = nil
	if c.maxDef > 0 {
		c.def = slots
	}
	c.nrows = len(slots)
	return nil
}

// nestedColumn is an output column of nested type.
type nestedColumn struct {
	root   *nnode
	leaves []*nleaf
	left   int64 // records left in the row group
}

// planNested maps a nested Spark column onto the file (planColumn's hook for nested types). By
// field id (Iceberg), fn gives the ids of the column's parts (fieldid.go).
func planNested(s *fileSchema, f sparktype.Field, caseSensitive bool, id int32, byID bool, fn *FieldNode,
	mapping map[string][]MappedName) (*column, error) {
	if !f.Type.Readable() || f.Type.Arrow() == nil {
		return nil, fmt.Errorf("column %s: Spark type %s is not supported by the native Parquet reader", f.Name, f.Type)
	}
	c := &column{field: f, dt: f.Type.Arrow()}
	var t *topField
	var ok bool
	var err error
	if byID {
		t, ok, err = lookupID(s, id)
	} else {
		t, ok, err = lookupTop(s, f.Name, caseSensitive)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		c.conv = cvMissing
		return c, nil
	}
	if byID && (fn == nil || fn.ID != id) {
		return nil, fmt.Errorf("column %s: no field ids for the parts of nested column (id %d)", f.Name, id)
	}
	nodes, err := s.fileNodes()
	if err != nil {
		return nil, err
	}
	var p *pnode
	for i := range s.top {
		if &s.top[i] == t && i < len(nodes) {
			p = nodes[i]
		}
	}
	if p == nil {
		return nil, fmt.Errorf("column %s: not found in the schema tree", f.Name)
	}
	if byID && !s.ownIDs {
		// The file has no field ids: the name mapping gives the parts theirs. Without a mapping
		// (Iceberg's positional fallback ids, top-level only) the parts have none to match by.
		ms, ok := mapping[t.name]
		if !ok {
			return nil, &UnsupportedError{What: fmt.Sprintf(
				"column %s: a nested column in a file without field ids, and no name mapping of its fields", f.Name)}
		}
		if miss := applyMapping(p, ms); miss != "" {
			return nil, &UnsupportedError{What: fmt.Sprintf(
				"column %s: %s of a file without field ids is not in the name mapping", f.Name, miss)}
		}
	}
	nc := &nestedColumn{}
	b := nbuilder{nc: nc, caseSensitive: caseSensitive, byID: byID, root: p}
	root, err := b.plan(f.Type, p, fn, 0, 0, false)
	if err != nil {
		return nil, err
	}
	nc.root = root
	c.conv = cvNested
	c.nest = nc
	return c, nil
}

type nbuilder struct {
	nc            *nestedColumn
	caseSensitive bool
	byID          bool   // match struct fields by field id (fieldid.go), not by name
	root          *pnode // the column's top-level node
}

func unsupportedShape(p *pnode, t sparktype.Type, why string) error {
	return &UnsupportedError{What: fmt.Sprintf("column %s: Parquet %s read as %s (%s)", p.path, describe(p), t, why)}
}

func describe(p *pnode) string {
	if p.leaf != nil {
		return strings.ToLower(p.rep.String()) + " " + p.leaf.String()
	}
	s := strings.ToLower(p.rep.String()) + " group"
	if p.isList() {
		s += " (LIST)"
	} else if p.isMap() {
		s += " (MAP)"
	}
	return s
}

// plan builds the node reading p as t; slotRep and slotDef are the levels of the innermost
// enclosing list element (0 outside lists). elem: p is a list's repeated node read as its element.
// fn: the field ids of t's parts, when matching by id.
func (b *nbuilder) plan(t sparktype.Type, p *pnode, fn *FieldNode, slotRep, slotDef byte, elem bool) (*nnode, error) {
	if p.rep == format.Repeated && !elem && t.Kind != sparktype.Array {
		return nil, unsupportedShape(p, t, "a repeated field read as a non-array")
	}
	x := &nnode{kind: t.Kind, typ: t, dt: t.Arrow(), slotRep: slotRep, slotDef: slotDef, validDef: p.def}
	var ids []*FieldNode
	if b.byID {
		var err error
		if ids, err = fn.kids(t, p.path); err != nil {
			return nil, err
		}
	}
	part := func(i int) *FieldNode {
		if ids == nil {
			return nil
		}
		return ids[i]
	}
	switch t.Kind {
	case sparktype.Struct:
		if p.leaf != nil || p.isList() || p.isMap() {
			return nil, unsupportedShape(p, t, "not a plain group")
		}
		for i, f := range t.Fields() {
			var q *pnode
			var err error
			if b.byID {
				q, err = childByID(p, ids[i].ID)
			} else {
				q, err = b.child(p, f.Name)
			}
			if err != nil {
				return nil, err
			}
			if q == nil {
				x.kids = append(x.kids, nil)
				if b.byID && ids[i].Default != nil {
					if err := checkDefault(ids[i], f.Type, p.path+"."+f.Name); err != nil {
						return nil, err
					}
					if x.defaults == nil {
						x.defaults = make([]any, len(t.Fields()))
					}
					x.defaults[i] = ids[i].Default
				}
				continue
			}
			k, err := b.plan(f.Type, q, part(i), slotRep, slotDef, false)
			if err != nil {
				return nil, err
			}
			x.kids = append(x.kids, k)
			if x.first == nil {
				x.first = k.first
			}
		}
		if x.first == nil && b.byID && p == b.root {
			// Iceberg: the struct column is in the file, none of the requested fields is (all
			// added later). Its nulls come from the levels of one of its leaves, read for them
			// alone. Only for a top-level column: below it, Iceberg Java's reader answers
			// differently (a list whose element struct has no field in the file reads as null),
			// so those files stay with it.
			k, err := b.shapeLeaf(p, slotRep, slotDef)
			if err != nil {
				return nil, err
			}
			if k != nil {
				x.first = k.first
			}
		}
		if x.first == nil {
			return nil, unsupportedShape(p, t, "none of the requested fields is in the file")
		}
		return x, nil
	case sparktype.Array:
		et, _ := t.Elem()
		var e *nnode
		var err error
		switch {
		case p.rep == format.Repeated && !elem:
			// An unannotated repeated field: a required list of required elements.
			x.validDef = p.def - 1
			e, err = b.plan(et, p, part(0), p.lvl, p.def, true)
		case p.leaf == nil && p.isList() && len(p.kids) == 1 && p.kids[0].rep == format.Repeated:
			r := p.kids[0]
			if r.leaf != nil || len(r.kids) > 1 || r.name == "array" || r.name == p.name+"_tuple" {
				e, err = b.plan(et, r, part(0), r.lvl, r.def, true)
			} else if len(r.kids) == 1 {
				e, err = b.plan(et, r.kids[0], part(0), r.lvl, r.def, false)
			} else {
				return nil, unsupportedShape(p, t, "an empty repeated group")
			}
		default:
			return nil, unsupportedShape(p, t, "not a list")
		}
		if err != nil {
			return nil, err
		}
		x.kids, x.first = []*nnode{e}, e.first
		return x, nil
	case sparktype.Map:
		if p.leaf != nil || !p.isMap() || len(p.kids) != 1 || p.kids[0].rep != format.Repeated || len(p.kids[0].kids) != 2 {
			return nil, unsupportedShape(p, t, "not a map of a repeated key-value group")
		}
		r := p.kids[0]
		kt, vt, _ := t.KeyValue()
		k, err := b.plan(kt, r.kids[0], part(0), r.lvl, r.def, false)
		if err != nil {
			return nil, err
		}
		v, err := b.plan(vt, r.kids[1], part(1), r.lvl, r.def, false)
		if err != nil {
			return nil, err
		}
		entries := &nnode{kind: sparktype.Struct, dt: x.dt.(*arrow.MapType).Elem(), slotRep: r.lvl, slotDef: r.def,
			validDef: r.def, kids: []*nnode{k, v}, first: k.first}
		x.kids, x.first = []*nnode{entries}, k.first
		return x, nil
	}
	// A leaf.
	if p.leaf == nil {
		return nil, unsupportedShape(p, t, "a group read as an atomic type")
	}
	cv, up, ok := conversion(p.leaf, t)
	if b.byID && t.Kind == sparktype.String && isUUID(p.leaf) {
		cv, ok = cvUUID, true // Iceberg's uuid (uuid.go)
	}
	if !ok {
		return nil, &TypeMismatchError{Column: "[" + strings.ReplaceAll(p.path, ".", ", ") + "]", Physical: p.leaf.phys.String(),
			Spark: t.CatalogString(), Detail: fmt.Sprintf("column %s: Parquet type %s cannot be read as Spark type %s", p.path, p.leaf.String(), t)}
	}
	l := &nleaf{}
	l.col = column{field: sparktype.Field{Name: p.path, Type: t, Nullable: true}, dt: x.dt, leaf: p.leaf, conv: cv, up: up}
	l.col.init()
	l.ls = levelStream{slotRep: slotRep, slotDef: slotDef, maxRep: p.lvl}
	l.col.cur.nest = &l.ls
	x.leaf, x.first = l, l
	b.nc.leaves = append(b.nc.leaves, l)
	return x, nil
}

// child finds a struct field of p by name, Spark's way (case-insensitive unless told otherwise,
// an ambiguous name is an error).
func (b *nbuilder) child(p *pnode, name string) (*pnode, error) {
	var found *pnode
	var names []string
	for _, k := range p.kids {
		if sameName(k.name, name, b.caseSensitive) {
			if found == nil {
				found = k
			}
			names = append(names, k.name)
		}
	}
	if len(names) > 1 {
		return nil, fmt.Errorf("found duplicate field(s) %q: [%s] in case-insensitive mode", name, strings.Join(names, ", "))
	}
	return found, nil
}

// withNested is cols plus the leaf columns of its nested columns (for the per-chunk checks).
func withNested(cols []*column) []*column {
	out := cols
	for _, c := range cols {
		if c.nest != nil {
			if len(out) == len(cols) {
				out = append([]*column(nil), cols...)
			}
			for _, l := range c.nest.leaves {
				out = append(out, &l.col)
			}
		}
	}
	return out
}

func (nc *nestedColumn) start(r *Reader, i int) error {
	rg := &r.meta.RowGroups[i]
	chunks := r.file.RowGroups()[i].ColumnChunks()
	for _, l := range nc.leaves {
		c := &l.col
		fc, ok := chunks[c.leaf.index].(*pq.FileColumnChunk)
		if !ok {
			return fmt.Errorf("row group %d column %s: unexpected column chunk type %T", i, c.leaf.name, chunks[c.leaf.index])
		}
		md := &rg.Columns[c.leaf.index].MetaData
		off := md.DataPageOffset
		if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
			off = md.DictionaryPageOffset
		}
		if md.TotalCompressedSize < 0 || off < 0 || off+md.TotalCompressedSize > r.file.Size() {
			return fmt.Errorf("row group %d column %s: column chunk [%d, +%d) lies outside the file (%d bytes)",
				i, c.leaf.name, off, md.TotalCompressedSize, r.file.Size())
		}
		r.stats.BytesRead += md.TotalCompressedSize
		c.start(fc, md, false, 0) // a nested leaf: parquet-go decodes its levels
		l.ls.n, l.ls.pos = 0, 0
	}
	nc.left = rg.NumRows
	return nil
}

func (nc *nestedColumn) stop() {
	for _, l := range nc.leaves {
		l.col.stop()
		l.ls.n, l.ls.pos = 0, 0
		l.ls.reps, l.ls.defs = nil, nil
		l.releaseBatch()
	}
}

func (nc *nestedColumn) releaseScratch() {
	for _, l := range nc.leaves {
		l.col.releaseScratch()
	}
}

func (l *nleaf) releaseBatch() {
	for _, p := range l.pieces {
		p.Release()
	}
	l.pieces = l.pieces[:0]
	if l.vals != nil {
		l.vals.Release()
		l.vals = nil
	}
}

func (nc *nestedColumn) read(n int, mem memory.Allocator) (arrow.Array, error) {
	final := int64(n) >= nc.left
	nc.left -= int64(n)
	defer func() {
		for _, l := range nc.leaves {
			l.releaseBatch()
		}
	}()
	for _, l := range nc.leaves {
		if err := l.readBatch(n, final, mem); err != nil {
			return nil, fmt.Errorf("column %s: %w", l.col.leaf.name, err)
		}
	}
	d, err := nc.build(nc.root, mem)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	if d.Len() != n {
		return nil, fmt.Errorf("nested column assembled %d rows for %d records: %w", d.Len(), n, pq.ErrCorrupted)
	}
	return array.MakeFromData(d), nil
}

// readBatch reads the levels and slots of n records.
func (l *nleaf) readBatch(n int, final bool, mem memory.Allocator) error {
	l.reps, l.defs = l.reps[:0], l.defs[:0]
	c, ls := &l.col.cur, &l.ls
	sr, sd := ls.slotRep, ls.slotDef
	records := 0
	for {
		if ls.pos == ls.n {
			if records == n && final {
				break
			}
			if err := c.load(); err != nil {
				if err == errEOFInChunk && records == n {
					break
				}
				return err
			}
			continue
		}
		start, slots, stop := ls.pos, 0, false
		i := start
		for ; i < ls.n; i++ {
			r := ls.reps[i]
			if r == 0 {
				if records == n {
					stop = true
					break
				}
				records++
			} else if records == 0 {
				return fmt.Errorf("a record starts at repetition level %d: %w", r, pq.ErrCorrupted)
			}
			if r <= sr && ls.defs[i] >= sd {
				slots++
			}
		}
		l.reps = append(l.reps, ls.reps[start:i]...)
		l.defs = append(l.defs, ls.defs[start:i]...)
		ls.pos = i
		if slots > 0 {
			a, err := l.col.dec.read(c, slots, mem)
			if err != nil {
				return err
			}
			l.pieces = append(l.pieces, a)
		}
		if stop {
			break
		}
	}
	switch len(l.pieces) {
	case 0:
		l.vals = array.MakeArrayOfNull(mem, l.col.dt, 0)
	case 1:
		l.vals, l.pieces = l.pieces[0], l.pieces[:0]
	default:
		v, err := array.Concatenate(l.pieces, mem)
		if err != nil {
			return err
		}
		l.vals = v
		for _, p := range l.pieces {
			p.Release()
		}
		l.pieces = l.pieces[:0]
	}
	return nil
}

// build assembles node x of the batch; the caller owns the result.
func (nc *nestedColumn) build(x *nnode, mem memory.Allocator) (arrow.ArrayData, error) {
	if x.leaf != nil {
		d := x.leaf.vals.Data()
		d.Retain()
		return d, nil
	}
	lv := x.first
	reps, defs := lv.reps, lv.defs
	n, nulls := 0, 0
	for i, r := range reps {
		if r <= x.slotRep && defs[i] >= x.slotDef {
			n++
			if defs[i] < x.validDef {
				nulls++
			}
		}
	}
	var valid *memory.Buffer
	if nulls > 0 {
		valid = newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		bits := valid.Bytes()
		clear(bits)
		j := 0
		for i, r := range reps {
			if r <= x.slotRep && defs[i] >= x.slotDef {
				if defs[i] >= x.validDef {
					bits[j>>3] |= 1 << (j & 7)
				}
				j++
			}
		}
	}
	bufs := []*memory.Buffer{valid}
	var kids []arrow.ArrayData
	fail := func(err error) (arrow.ArrayData, error) {
		for _, b := range bufs {
			releaseBuf(b)
		}
		releaseKids(kids)
		return nil, err
	}
	if x.kind == sparktype.Array || x.kind == sparktype.Map {
		e := x.kids[0]
		ob := newBuffer(mem, (n+1)*4)
		bufs = append(bufs, ob)
		offs := viewAs[int32](ob.Bytes(), n+1)
		j, m := 0, int32(0)
		for i, r := range reps {
			d := defs[i]
			if r <= x.slotRep && d >= x.slotDef {
				offs[j] = m
				j++
			}
			if r <= e.slotRep && d >= e.slotDef {
				m++
			}
		}
		offs[n] = m
	}
	st, _ := x.dt.(*arrow.StructType)
	for i, k := range x.kids {
		var d arrow.ArrayData
		if k == nil {
			var a arrow.Array
			if x.defaults != nil && x.defaults[i] != nil {
				var err error
				if a, err = columnar.Constant(mem, x.fieldType(i), x.defaults[i], n); err != nil {
					return fail(fmt.Errorf("struct field %s: initial default: %w", st.Field(i).Name, err))
				}
			} else {
				a = array.MakeArrayOfNull(mem, st.Field(i).Type, n)
			}
			d = a.Data()
			d.Retain()
			a.Release()
		} else {
			var err error
			if d, err = nc.build(k, mem); err != nil {
				return fail(err)
			}
		}
		kids = append(kids, d)
		if x.kind == sparktype.Struct && d.Len() != n {
			return fail(fmt.Errorf("struct field %d has %d rows, the struct %d: %w", i, d.Len(), n, pq.ErrCorrupted))
		}
	}
	out := array.NewData(x.dt, n, bufs, kids, nulls, 0)
	for _, b := range bufs {
		releaseBuf(b)
	}
	releaseKids(kids)
	return out, nil
}

func releaseKids(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}
