package iceberg

import (
	"encoding/json"
	"fmt"

	"github.com/bolide-dev/bolide/native/parquet"
)

// mappedField is one entry of a name mapping (Iceberg's schema.name-mapping.default).
type mappedField struct {
	FieldID *int32        `json:"field-id"`
	Names   []string      `json:"names"`
	Fields  []mappedField `json:"fields"`
}

// nameMapping is a parsed mapping: files written without field ids (imported from Hive or plain
// Parquet) are read through it.
type nameMapping struct {
	top    map[string]int32                // top-level names and their field ids
	nested map[string][]parquet.MappedName // by top-level name, the entries inside that field
}

// parseNameMapping reads a mapping's JSON.
func parseNameMapping(js string) (*nameMapping, error) {
	var fields []mappedField
	if err := json.Unmarshal([]byte(js), &fields); err != nil {
		return nil, fmt.Errorf("iceberg name mapping: %w", err)
	}
	m := &nameMapping{top: map[string]int32{}, nested: map[string][]parquet.MappedName{}}
	for _, f := range fields {
		if f.FieldID == nil {
			continue
		}
		inner := mappedNames(f.Fields)
		for _, n := range f.Names {
			m.top[n] = *f.FieldID
			m.nested[n] = inner
		}
	}
	return m, nil
}

// mappedNames converts nested entries; an entry without a field id names nothing (a part it
// would name stays without an id, and the reader leaves its file to Iceberg Java).
func mappedNames(fs []mappedField) []parquet.MappedName {
	var out []parquet.MappedName
	for _, f := range fs {
		if f.FieldID == nil {
			continue
		}
		out = append(out, parquet.MappedName{ID: *f.FieldID, Names: f.Names, Fields: mappedNames(f.Fields)})
	}
	return out
}
