package expr

import "testing"

func TestTypeOf(t *testing.T) {
	ints := column(t, "integer", 1, nil)
	for _, c := range []struct{ typ, want string }{
		{"integer", "int"}, {"long", "bigint"}, {"byte", "tinyint"}, {"short", "smallint"},
		{"decimal(10,2)", "decimal(10,2)"}, {"string", "string"}, {"timestamp_ntz", "timestamp_ntz"},
		{"timestamp", "timestamp"}, {"double", "double"}, {"float", "float"}, {"binary", "binary"},
		{"date", "date"}, {"boolean", "boolean"}, {"void", "void"},
	} {
		// The child is never evaluated: a column the batch lacks still gives the type.
		got, err := run(t, node("TypeOf", "string", "child", col(5, c.typ)), ints)
		expectRows(t, c.typ, got, err, c.want, c.want)
	}
	expectRefused(t, "interval", node("TypeOf", "string", "child", col(0, "interval day to second")), "not supported")
	expectRefused(t, "collated", node("TypeOf", "string", "child", col(0, "string collate UTF8_LCASE")), "not supported")
}
