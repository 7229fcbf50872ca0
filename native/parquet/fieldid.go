package parquet

// Nested columns matched by field id, as Iceberg matches them: a struct's fields are found in the
// file by their Parquet field_id, not by name, at every level, so that the table's schema
// evolution inside structs reads right: a renamed field still reads (same id), a dropped and
// re-added one does not (new id), a reordered one is found where it is, an added one is absent
// from older files (null, or its v3 initial default). A list's element and a map's key and value
// are found by the shape of the file's groups (their ids are not needed to find them), and the
// fields of structs below them are matched by id in turn. Type promotion inside (int to long,
// float to double, decimal widening) is the leaf conversion every column gets (schema.go).

import (
	"fmt"

	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/sparktype"
)

const repeated = format.Repeated

// FieldNode gives the field ids inside one nested column of a scan by field id.
type FieldNode struct {
	ID int32
	// Default is a struct field's v3 initial default, the value an older file without the field
	// reads as (a primitive's value in plan.DecodeValue's form); nil: null.
	Default any
	// Kids: a struct's fields, one per field of the Spark type and in its order; a list's element;
	// a map's key and value. Primitives have none.
	Kids []*FieldNode
}

// kids checks that node n, read as Spark type t, describes as many parts as t has.
func (n *FieldNode) kids(t sparktype.Type, path string) ([]*FieldNode, error) {
	want := 0
	switch t.Kind {
	case sparktype.Struct:
		want = len(t.Fields())
	case sparktype.Array:
		want = 1
	case sparktype.Map:
		want = 2
	}
	if n == nil || len(n.Kids) != want {
		got := -1
		if n != nil {
			got = len(n.Kids)
		}
		return nil, fmt.Errorf("column %s: the scan gives field ids for %d parts of its type %s, it has %d", path, got, t, want)
	}
	for i, k := range n.Kids {
		if k == nil {
			return nil, fmt.Errorf("column %s: no field id for part %d of its type %s", path, i, t)
		}
	}
	return n.Kids, nil
}

// childByID finds the field of struct group p whose field id is id (nil: the file does not have
// it). A field without an id cannot be matched: Iceberg writes ids on every field, so such a
// file was written by something else, and the scan leaves it to Iceberg Java rather than guess.
func childByID(p *pnode, id int32) (*pnode, error) {
	var found *pnode
	for _, k := range p.kids {
		if k.id == 0 {
			return nil, &UnsupportedError{What: fmt.Sprintf("struct field %s has no field id", k.path)}
		}
		if k.id == id {
			if found != nil {
				return nil, fmt.Errorf("field id %d appears twice in struct %s (%s, %s)", id, p.path, found.name, k.name)
			}
			found = k
		}
	}
	return found, nil
}

// checkDefault refuses initial defaults the assembler cannot produce: a default of a nested type
// (Iceberg allows only primitives' today, but a newer writer might not).
func checkDefault(n *FieldNode, t sparktype.Type, path string) error {
	if n.Default != nil && t.Nested() {
		return &UnsupportedError{What: fmt.Sprintf("struct field %s: an initial default of nested type %s", path, t)}
	}
	return nil
}

// MappedName is an entry of an Iceberg name mapping below the top level: the names a field has
// had in files without field ids, its id, and the entries of its own parts (a list's element is
// named "element", a map's key and value "key" and "value", as Iceberg's MappingUtil names them).
type MappedName struct {
	ID     int32
	Names  []string
	Fields []MappedName
}

func findMapped(ms []MappedName, name string) *MappedName {
	for i := range ms {
		for _, n := range ms[i].Names {
			if n == name {
				return &ms[i]
			}
		}
	}
	return nil
}

// applyMapping gives the parts of a file's nested column without field ids the ids of the name
// mapping's entries, Iceberg's way (ApplyNameMapping): a struct's fields by name, a list's
// element and a map's key and value by their names in the file. It returns the path of a part
// the mapping does not name, or "" when it names them all: the reader leaves such a file to
// Iceberg Java (which ignores an unmapped part, or reads its struct fields as nulls) rather than
// reproduce what an incomplete mapping means.
func applyMapping(p *pnode, ms []MappedName) string {
	place := func(k *pnode) string {
		m := findMapped(ms, k.name)
		if m == nil {
			return k.path
		}
		k.id = m.ID
		return applyMapping(k, m.Fields)
	}
	var kids []*pnode
	switch {
	case p.leaf != nil:
		return ""
	case p.isList():
		e := listElement(p)
		if e == nil || e == p.kids[0] {
			return p.path // not the 3-level layout: its element is not named "element"
		}
		kids = []*pnode{e}
	case p.isMap():
		if len(p.kids) != 1 {
			return p.path
		}
		kids = p.kids[0].kids
	case p.rep == repeated:
		return p.path // an unannotated repeated field: a list without an element to name
	default:
		kids = p.kids
	}
	for _, k := range kids {
		if miss := place(k); miss != "" {
			return miss
		}
	}
	return ""
}

// listElement is the node of a LIST group read as its element (nested.go's shapes), or nil.
func listElement(p *pnode) *pnode {
	if len(p.kids) != 1 || p.kids[0].rep != repeated {
		return nil
	}
	r := p.kids[0]
	if r.leaf != nil || len(r.kids) > 1 || r.name == "array" || r.name == p.name+"_tuple" {
		return r
	}
	if len(r.kids) == 1 {
		return r.kids[0]
	}
	return nil
}

// shapeLeaf plans a leaf of struct group p that is not requested, read only for its levels: the
// first reachable through plain groups (not lists or maps, so that its entries are p's), as the
// Spark type its values decode as without conversion. nil when p has none.
func (b *nbuilder) shapeLeaf(p *pnode, slotRep, slotDef byte) (*nnode, error) {
	q := plainLeaf(p)
	if q == nil {
		return nil, nil
	}
	var t sparktype.Type
	switch q.leaf.phys {
	case format.Boolean:
		t = sparktype.BooleanType
	case format.Int32:
		t = sparktype.IntType
	case format.Int64:
		t = sparktype.LongType
	case format.Int96:
		t = sparktype.TimestampType
	case format.Float:
		t = sparktype.FloatType
	case format.Double:
		t = sparktype.DoubleType
	default:
		t = sparktype.BinaryType
	}
	return b.plan(t, q, &FieldNode{ID: q.id}, slotRep, slotDef, false)
}

func plainLeaf(p *pnode) *pnode {
	for _, k := range p.kids {
		switch {
		case k.rep == repeated || k.isList() || k.isMap():
		case k.leaf != nil:
			return k
		default:
			if l := plainLeaf(k); l != nil {
				return l
			}
		}
	}
	return nil
}
