// Package iceberg owns the reading half of an Iceberg scan: Iceberg Java plans the scan on the
// driver (metadata, manifests, pruning, runtime filters) and hands each task its FileScanTasks;
// this package reads them. It maps the table's columns onto each data file by field id (schema
// evolution, name mappings, initial defaults, identity-partition constants), adds the metadata
// columns, and applies every delete that Iceberg assigned to a task: positional delete files,
// equality delete files and v3 deletion vectors. It uses native/parquet for the bytes and knows
// no Spark plans.
package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bolide-dev/bolide/native/objstore"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Reserved field ids of Iceberg's metadata columns (MetadataColumns in Iceberg Java).
const (
	FilePathID         int32 = 2147483646 // _file
	RowPositionID      int32 = 2147483645 // _pos
	IsDeletedID        int32 = 2147483644 // _deleted
	SpecIDID           int32 = 2147483643 // _spec_id
	PartitionID        int32 = 2147483642 // _partition
	DeleteFilePathID   int32 = 2147483546 // file_path of a positional delete file
	DeleteFilePosID    int32 = 2147483545 // pos of a positional delete file
	RowIDID            int32 = 2147483540 // _row_id (v3 row lineage)
	LastUpdatedSeqNoID int32 = 2147483539 // _last_updated_sequence_number (v3 row lineage)
)

// Column is one output column of the scan, in Spark's output order: a table field read from the
// data files (or its constant), or a metadata column.
type Column struct {
	Name        string          `json:"name"`
	ID          int32           `json:"id"`
	IcebergType string          `json:"icebergType"`
	Default     json.RawMessage `json:"default"` // v3 initial default, a Spark literal; null when none
	Fields      []NestedField   `json:"fields"`  // a nested column's parts, with their field ids (nested.go)
	Type        sparktype.Type  `json:"-"`       // Spark's type, from the scan's output
}

// TableField is a top-level field of the table's current schema: the type an equality delete's
// field is read with.
type TableField struct {
	ID          int32           `json:"id"`
	Name        string          `json:"name"`
	IcebergType string          `json:"icebergType"`
	SparkType   json.RawMessage `json:"sparkType"` // null for types Spark cannot hold
}

// Scan is what every task of an Iceberg scan shares, encoded once on the driver.
type Scan struct {
	ScanClass     string       `json:"scanClass"`
	FormatVersion int          `json:"formatVersion"`
	Error         string       `json:"error"` // set when the JVM could not read the scan
	Columns       []Column     `json:"columns"`
	TableFields   []TableField `json:"tableFields"`
	NameMapping   string       `json:"nameMapping"` // the table's schema.name-mapping.default, or ""
	DataFormats   []string     `json:"dataFormats"`
	DeleteFormats []string     `json:"deleteFormats"`
	OtherTasks    int          `json:"otherTasks"` // scan tasks that are not FileScanTasks
	Encrypted     int          `json:"encrypted"`  // files with key metadata
	CaseSensitive bool         `json:"caseSensitive"`
	// Storage reaches the table's object store: built from the catalog's s3.* / client.* and
	// Hadoop's fs.s3a.* properties (the JVM sends only those), it never prints its credentials.
	Storage Storage `json:"storage"`
}

// Storage is the object-store configuration of a scan, decoded from its property map.
type Storage struct{ objstore.Config }

// UnmarshalJSON reads the property map; the map itself is not kept.
func (s *Storage) UnmarshalJSON(b []byte) error {
	var props map[string]string
	if err := json.Unmarshal(b, &props); err != nil {
		return errors.New("decode the Iceberg scan's storage properties: not a map of strings")
	}
	s.Config = objstore.ConfigFromProperties(props)
	return nil
}

// Task is one FileScanTask: a byte range of a data file, its constants and its deletes.
type Task struct {
	Path        string       `json:"path"`
	Format      string       `json:"format"`
	Start       int64        `json:"start"`
	Length      int64        `json:"length"`
	FileSize    int64        `json:"fileSize"`
	RecordCount int64        `json:"recordCount"`
	SpecID      int32        `json:"specId"`
	Constants   []Constant   `json:"constants"`
	Deletes     []DeleteFile `json:"deletes"`
}

// Constant is a value Iceberg Java reads from metadata rather than from the file: an identity
// partition's value (PartitionUtil.constantsMap), converted to Spark's form.
type Constant struct {
	ID    int32           `json:"id"`
	Value json.RawMessage `json:"value"`
}

// DeleteFile is a delete that applies to a task's data file.
type DeleteFile struct {
	Path               string  `json:"path"`
	Content            string  `json:"content"` // POSITION_DELETES or EQUALITY_DELETES
	Format             string  `json:"format"`  // PARQUET or PUFFIN (deletion vectors)
	FileSize           int64   `json:"fileSize"`
	RecordCount        int64   `json:"recordCount"`
	EqualityIDs        []int32 `json:"equalityIds"`
	ReferencedDataFile string  `json:"referencedDataFile"`
	ContentOffset      *int64  `json:"contentOffset"`
	ContentSize        *int64  `json:"contentSize"`
}

// IsDeletionVector: a v3 deletion vector, a blob of a Puffin file.
func (d *DeleteFile) IsDeletionVector() bool {
	return d.Format == "PUFFIN" && d.ContentOffset != nil && d.ContentSize != nil
}

// ParseTasks decodes the tasks of one Spark partition.
func ParseTasks(raw json.RawMessage) ([]Task, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var tasks []Task
	if err := json.Unmarshal(raw, &tasks); err != nil {
		return nil, fmt.Errorf("decode Iceberg scan tasks: %w", err)
	}
	return tasks, nil
}

// IsMetadataColumn: a reserved id of one of Iceberg's metadata columns.
func IsMetadataColumn(id int32) bool { return id >= RowIDID-100 }
