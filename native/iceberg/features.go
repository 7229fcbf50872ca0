package iceberg

import "strings"

// Feature is one Iceberg capability and how Bolide handles it, for the generated support
// document. The refusals of the scan's translation read the same tables (RefusedTypes,
// MaxFormatVersion), so the document cannot drift from what the code does.
type Feature struct {
	Name   string
	Native bool
	Note   string
}

// MaxFormatVersion is the newest table format version read natively.
const MaxFormatVersion = 3

// RefusedTypes are the Iceberg types whose columns leave the scan to Iceberg Java, with why.
var RefusedTypes = []Feature{
	{Name: "variant", Note: "no native variant reader yet"},
	{Name: "geometry", Note: "no native geospatial types"},
	{Name: "geography", Note: "no native geospatial types"},
	{Name: "unknown", Note: "no native reader for the v3 unknown type yet"},
	{Name: "time", Note: "Spark has no time type"},
	{Name: "timestamp_ns", Note: "nanosecond timestamps are not read natively yet"},
	{Name: "timestamptz_ns", Note: "nanosecond timestamps are not read natively yet"},
}

// RefusedType returns the refusal for an Iceberg type string (Type.toString in Iceberg Java:
// "geometry(srid:4326)", "struct<...>", "list<int>"...).
func RefusedType(t string) (Feature, bool) {
	for _, f := range RefusedTypes {
		if t == f.Name || strings.HasPrefix(t, f.Name+"(") || strings.HasPrefix(t, f.Name+"<") {
			return f, true
		}
	}
	return Feature{}, false
}

// Features lists what the native reader does and what it leaves to Iceberg Java.
func Features() []Feature {
	fs := []Feature{
		{"Format versions 1, 2 and 3", true, "v4 and later stay in Iceberg Java"},
		{"Parquet data files", true, "ORC and Avro data files stay in Iceberg Java; a Parquet file whose codec the native decoder lacks (LZ4_RAW, Hadoop LZ4, LZO) is read by Iceberg Java's reader inside the native scan"},
		{"Local file system (file:, absolute paths)", true, ""},
		{"S3 and S3-compatible storage (s3:, s3a:, s3n:)", true, "endpoint, path-style access, region and static credentials from the catalog's s3.* / client.* properties or spark.hadoop.fs.s3a.*; data files opened ahead (spark.bolide.scan.iceberg.dataFileConcurrencyLimit)"},
		{"S3 credentials from the AWS default chain", true, "without static keys: environment, shared config and credentials files, web identity, container and EC2 instance roles, as Iceberg's S3FileIO and S3A's default providers; S3A's AnonymousAWSCredentialsProvider reads unsigned"},
		{"Custom S3 credential providers", false, "client.credentials-provider, client.factory, client.assume-role.*, s3.remote-signing-enabled and S3A provider classes other than the default chain's stay in Iceberg Java"},
		{"Other storage (HDFS, GCS, ADLS)", false, "stays in Iceberg Java for now"},
		{"Planning (metadata, manifests, pruning, runtime filters)", false, "Iceberg Java on the driver, by design"},
		{"Projection by field id (add, drop, rename, reorder columns)", true, ""},
		{"Type promotion (int to long, float to double, decimal widening)", true, ""},
		{"Name mapping for files without field ids", true, "`schema.name-mapping.default`, nested fields included; without one, Iceberg's positional fallback ids (top-level columns only)"},
		{"Identity-partition values as constants", true, "every identity-partitioned type incl. BINARY, DECIMAL(38) and uuid (a string, the lower-case 8-4-4-4-12 form)"},
		{"Columns of type uuid", true, "read as Spark's string, the lower-case 8-4-4-4-12 form"},
		{"Nested columns (struct, list, map)", true, "matched by field id at every level: fields added, dropped, renamed and reordered inside structs, list elements and map values, with type promotion inside; files without field ids through the name mapping's nested entries; a data file whose nested parts the name mapping does not all name (or that has no mapping), or that has none of the requested fields of a struct below the top level (a list's element struct, say), is read by Iceberg Java's reader inside the native scan"},
		{"v3 initial default values", true, "for primitive columns, top-level or fields of structs"},
		{"Positional delete files", true, ""},
		{"Equality delete files", true, "top-level primitive equality fields"},
		{"Deletion vectors (v3, Puffin)", true, ""},
		{"Metadata columns _file, _pos, _spec_id, _deleted", true, ""},
		{"Metadata column _partition", false, "a struct: stays in Iceberg Java"},
		{"Row lineage columns _row_id, _last_updated_sequence_number", false, "stay in Iceberg Java"},
		{"Time travel (VERSION AS OF, TIMESTAMP AS OF), branches and tags", true, "Iceberg Java plans the snapshot"},
		{"Copy-on-write and merge-on-read tables", true, ""},
		{"Metadata tables (t.files, t.snapshots, ...)", false, "their tasks are not data files: Iceberg Java"},
		{"Encrypted tables (key metadata)", false, "stay in Iceberg Java"},
	}
	for _, t := range RefusedTypes {
		fs = append(fs, Feature{Name: "Columns of type " + t.Name, Note: t.Note})
	}
	return fs
}
