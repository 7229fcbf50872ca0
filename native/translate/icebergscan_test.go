package translate

import (
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

// icebergNode is a BatchScanExec over an Iceberg table of (id long, s string), as the JVM's
// extractor encodes it, changed by edit.
func icebergNode(t *testing.T, edit func(scan map[string]any, fields map[string]any)) *plan.Node {
	t.Helper()
	scan := map[string]any{
		"scanClass": "SparkBatchQueryScan", "formatVersion": 2,
		"columns": []any{
			map[string]any{"name": "id", "id": 1, "icebergType": "long", "default": nil},
			map[string]any{"name": "s", "id": 2, "icebergType": "string", "default": nil},
		},
		"dataFormats": []any{"PARQUET"}, "deleteFormats": []any{"PARQUET", "PUFFIN"},
		"storage": map[string]any{},
	}
	fields := map[string]any{"scanClass": "SparkBatchQueryScan", "iceberg": scan, "schemes": []any{"file"}}
	if edit != nil {
		edit(scan, fields)
	}
	return decode(t, map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.datasources.v2.BatchScanExec",
		"nodeName": "BatchScan t", "fields": fields, "output": []any{
			map[string]any{"name": "id", "exprId": 1, "dataType": "long", "nullable": true},
			map[string]any{"name": "s", "exprId": 2, "dataType": "string", "nullable": true},
		}})
}

func TestIcebergScanAcceptsAndRefusesWithReasons(t *testing.T) {
	conf := &plan.Conf{Settings: map[string]string{}}
	if _, err := buildIcebergScan(icebergNode(t, nil), nil, conf); err != nil {
		t.Fatalf("a plain Iceberg scan must be native: %v", err)
	}
	cases := map[string]func(scan, fields map[string]any){
		"not supported natively (Iceberg tables only)": func(_, f map[string]any) { delete(f, "iceberg"); f["scanClass"] = "ParquetScan" },
		"format v4":      func(s, _ map[string]any) { s["formatVersion"] = 4 },
		"ORC format":     func(s, _ map[string]any) { s["dataFormats"] = []any{"PARQUET", "ORC"} },
		"AVRO format":    func(s, _ map[string]any) { s["deleteFormats"] = []any{"AVRO"} },
		"metadata table": func(s, _ map[string]any) { s["otherTasks"] = 3 },
		"encrypted":      func(s, _ map[string]any) { s["encrypted"] = 1 },
		"\"gs\" storage": func(_, f map[string]any) { f["schemes"] = []any{"gs"} },
		"client.credentials-provider": func(_, f map[string]any) {
			f["schemes"] = []any{"s3"}
			f["iceberg"].(map[string]any)["storage"] = map[string]any{"client.credentials-provider": "com.example.Vault"}
		},
		"_partition (a struct)": func(s, _ map[string]any) {
			s["columns"].([]any)[1] = map[string]any{"name": "_partition", "id": 2147483642, "icebergType": "struct<>"}
		},
		"Iceberg type variant": func(s, _ map[string]any) {
			s["columns"].([]any)[1] = map[string]any{"name": "s", "id": 2, "icebergType": "variant"}
		},
		"could not be read: NoSuchMethodException": func(s, _ map[string]any) { s["error"] = "NoSuchMethodException: x" },
	}
	for want, edit := range cases {
		_, err := buildIcebergScan(icebergNode(t, edit), nil, conf)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	withKeys := func(_, f map[string]any) {
		f["schemes"] = []any{"s3a"}
		f["iceberg"].(map[string]any)["storage"] = map[string]any{"s3.access-key-id": "k", "s3.secret-access-key": "topsecret"}
	}
	if _, err := buildIcebergScan(icebergNode(t, withKeys), nil, conf); err != nil {
		t.Errorf("S3 with static keys must be native: %v", err)
	}
	if _, err := buildIcebergScan(icebergNode(t, func(_, f map[string]any) { f["schemes"] = []any{"s3"} }), nil, conf); err != nil {
		t.Errorf("S3 with the AWS default chain's credentials must be native: %v", err)
	}
	off := &plan.Conf{Settings: map[string]string{IcebergEnabledKey: "false"}}
	if _, err := buildIcebergScan(icebergNode(t, nil), nil, off); err == nil || !strings.Contains(err.Error(), IcebergEnabledKey) {
		t.Errorf("switched off: %v", err)
	}
}

// A nested column is native when its Iceberg fields describe its Spark type, and stays in
// Iceberg Java, with the reason, when a type inside is one the native reader refuses.
func TestIcebergScanNestedColumns(t *testing.T) {
	conf := &plan.Conf{Settings: map[string]string{}}
	structType := map[string]any{"type": "struct", "fields": []any{
		map[string]any{"name": "a", "type": "integer", "nullable": true, "metadata": map[string]any{}},
		map[string]any{"name": "l", "type": map[string]any{"type": "array", "elementType": "long", "containsNull": true},
			"nullable": true, "metadata": map[string]any{}},
	}}
	node := func(fields []any) *plan.Node {
		scan := map[string]any{
			"scanClass": "SparkBatchQueryScan", "formatVersion": 2,
			"columns": []any{map[string]any{"name": "s", "id": 1, "icebergType": "struct<...>", "default": nil,
				"fields": fields}},
			"dataFormats": []any{"PARQUET"}, "storage": map[string]any{},
		}
		return decode(t, map[string]any{"id": 0, "class": "org.apache.spark.sql.execution.datasources.v2.BatchScanExec",
			"nodeName": "BatchScan t", "fields": map[string]any{"scanClass": "SparkBatchQueryScan", "iceberg": scan},
			"output": []any{map[string]any{"name": "s", "exprId": 1, "dataType": structType, "nullable": true}}})
	}
	fields := func(aType string) []any {
		return []any{
			map[string]any{"id": 2, "name": "a", "icebergType": aType},
			map[string]any{"id": 3, "name": "l", "icebergType": "list<long>", "fields": []any{
				map[string]any{"id": 4, "name": "element", "icebergType": "long"}}},
		}
	}
	if _, err := buildIcebergScan(node(fields("int")), nil, conf); err != nil {
		t.Fatalf("a struct column must be native: %v", err)
	}
	if _, err := buildIcebergScan(node(fields("timestamp_ns")), nil, conf); err == nil ||
		!strings.Contains(err.Error(), "field s.a of Iceberg type timestamp_ns") {
		t.Errorf("a refused type inside a struct: got %v", err)
	}
	if _, err := buildIcebergScan(node(fields("int")[:1]), nil, conf); err == nil ||
		!strings.Contains(err.Error(), "field l is not in the Iceberg projection") {
		t.Errorf("a field the description lacks: got %v", err)
	}
}
