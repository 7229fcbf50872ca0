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

	"github.com/bolide-dev/bolide/native/sparktype"
)

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
