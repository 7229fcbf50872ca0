package iceberg

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// NestedField is a field inside a nested column's Iceberg type (a NestedField of Iceberg Java's
// Type.NestedType.fields()): a struct's field, a list's element, a map's key and value, each
// with its field id. The JVM sends them in Iceberg's order, with Iceberg's names.
type NestedField struct {
	ID          int32           `json:"id"`
	Name        string          `json:"name"`
	IcebergType string          `json:"icebergType"`
	Default     json.RawMessage `json:"default"` // v3 initial default, a Spark literal; null when none
	Fields      []NestedField   `json:"fields"`
}

// FieldNode maps the column's nested fields onto its Spark type, for the Parquet reader's
// matching by id (parquet/fieldid.go); nil for a primitive column. An error says the column
// cannot be read natively: a type the native reader refuses somewhere inside, or a description
// that does not fit the Spark type.
func (c *Column) FieldNode() (*parquet.FieldNode, error) {
	if !c.Type.Nested() {
		return nil, nil
	}
	return fieldNode(c.ID, nil, c.Type, c.Fields, c.Name)
}

func fieldNode(id int32, def any, t sparktype.Type, fs []NestedField, path string) (*parquet.FieldNode, error) {
	n := &parquet.FieldNode{ID: id, Default: def}
	part := func(f *NestedField, ft sparktype.Type, path string) error {
		if r, refused := RefusedType(f.IcebergType); refused {
			return fmt.Errorf("field %s of Iceberg type %s is not read natively (%s)", path, f.IcebergType, r.Note)
		}
		v, err := plan.DecodeValue(f.Default, ft)
		if err != nil {
			return fmt.Errorf("field %s: initial default: %w", path, err)
		}
		k, err := fieldNode(f.ID, v, ft, f.Fields, path)
		if err != nil {
			return err
		}
		n.Kids = append(n.Kids, k)
		return nil
	}
	switch t.Kind {
	case sparktype.Struct:
		for _, sf := range t.Fields() {
			f, err := findNested(fs, sf.Name, path)
			if err != nil {
				return nil, err
			}
			if err := part(f, sf.Type, path+"."+sf.Name); err != nil {
				return nil, err
			}
		}
	case sparktype.Array:
		et, _ := t.Elem()
		if len(fs) != 1 {
			return nil, fmt.Errorf("column %s: an array described with %d Iceberg fields, not its element", path, len(fs))
		}
		if err := part(&fs[0], et, path+".element"); err != nil {
			return nil, err
		}
	case sparktype.Map:
		kt, vt, _ := t.KeyValue()
		if len(fs) != 2 {
			return nil, fmt.Errorf("column %s: a map described with %d Iceberg fields, not its key and value", path, len(fs))
		}
		if err := part(&fs[0], kt, path+".key"); err != nil {
			return nil, err
		}
		if err := part(&fs[1], vt, path+".value"); err != nil {
			return nil, err
		}
	default:
		if len(fs) != 0 {
			return nil, fmt.Errorf("column %s: Spark type %s described with %d Iceberg fields", path, t, len(fs))
		}
	}
	return n, nil
}

// findNested finds the Iceberg field of a Spark struct field: Iceberg's Spark schema keeps the
// names, so an exact match, else the only one that differs in case.
func findNested(fs []NestedField, name, path string) (*NestedField, error) {
	var found *NestedField
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i], nil
		}
		if strings.EqualFold(fs[i].Name, name) {
			if found != nil {
				return nil, fmt.Errorf("struct %s: field %s matches several Iceberg fields", path, name)
			}
			found = &fs[i]
		}
	}
	if found == nil {
		return nil, fmt.Errorf("struct %s: field %s is not in the Iceberg projection", path, name)
	}
	return found, nil
}
