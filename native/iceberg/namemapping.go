package iceberg

import (
	"encoding/json"
	"fmt"
)

// mappedField is one entry of a name mapping (Iceberg's schema.name-mapping.default).
type mappedField struct {
	FieldID *int32        `json:"field-id"`
	Names   []string      `json:"names"`
	Fields  []mappedField `json:"fields"`
}

// parseNameMapping returns the top-level names of a mapping and their field ids. Files written
// without field ids (imported from Hive or plain Parquet) are read through it.
func parseNameMapping(js string) (map[string]int32, error) {
	var fields []mappedField
	if err := json.Unmarshal([]byte(js), &fields); err != nil {
		return nil, fmt.Errorf("iceberg name mapping: %w", err)
	}
	out := map[string]int32{}
	for _, f := range fields {
		if f.FieldID == nil {
			continue
		}
		for _, n := range f.Names {
			out[n] = *f.FieldID
		}
	}
	return out, nil
}
