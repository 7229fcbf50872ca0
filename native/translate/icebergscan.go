package translate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/iceberg"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// IcebergEnabledKey switches the native Iceberg reader off (Iceberg Java then reads the table).
const IcebergEnabledKey = "spark.bolide.scan.iceberg.enabled"

func init() {
	Register(Rule{SparkClass: "BatchScanExec", Name: "BolideIcebergScan", ConfKey: "icebergScan",
		Doc: "Iceberg tables (format v1-v3, Parquet data files on local storage or S3): Iceberg Java " +
			"plans, Go reads; projection by field id (schema evolution, name mappings, v3 initial " +
			"defaults), nested columns matched by field id at every level, identity-partition " +
			"constants, metadata columns _file, _pos, _spec_id and _deleted, positional and equality " +
			"deletes, v3 deletion vectors",
		Build: buildIcebergScan})
}

// Iceberg's scans whose tasks are FileScanTasks over data files.
var icebergScanClasses = map[string]bool{"SparkBatchQueryScan": true, "SparkCopyOnWriteScan": true}

// The JVM's Iceberg extractor sends "scanClass" for every BatchScanExec and, for Iceberg's, the
// scan description "iceberg" (package iceberg's Scan) and the URI schemes of its files.
func buildIcebergScan(n *plan.Node, _ []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	class, _ := n.String("scanClass")
	raw, err := n.Raw("iceberg")
	if err != nil || len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("batch scans of %s are not supported natively (Iceberg tables only)", orUnknown(class))
	}
	if v, ok := conf.Settings[IcebergEnabledKey]; ok && strings.EqualFold(strings.TrimSpace(v), "false") {
		return nil, fmt.Errorf("the native Iceberg reader is off (%s=false)", IcebergEnabledKey)
	}
	var scan iceberg.Scan
	if err := json.Unmarshal(raw, &scan); err != nil {
		return nil, fmt.Errorf("decode the Iceberg scan: %w", err)
	}
	if scan.Error != "" {
		return nil, fmt.Errorf("the Iceberg scan could not be read: %s", scan.Error)
	}
	if !icebergScanClasses[scan.ScanClass] {
		return nil, fmt.Errorf("Iceberg %s scans are not read natively", scan.ScanClass)
	}
	if scan.FormatVersion > iceberg.MaxFormatVersion {
		return nil, fmt.Errorf("Iceberg format v%d is not read natively (v1 to v%d are)", scan.FormatVersion,
			iceberg.MaxFormatVersion)
	}
	for _, f := range scan.DataFormats {
		if f != "PARQUET" {
			return nil, fmt.Errorf("Iceberg data files in %s format are not read natively (Parquet only)", f)
		}
	}
	for _, f := range scan.DeleteFormats {
		if f != "PARQUET" && f != "PUFFIN" {
			return nil, fmt.Errorf("Iceberg delete files in %s format are not read natively", f)
		}
	}
	if scan.OtherTasks > 0 {
		return nil, fmt.Errorf("%d Iceberg scan tasks are not file scans (a metadata table?)", scan.OtherTasks)
	}
	if scan.Encrypted > 0 {
		return nil, fmt.Errorf("%d Iceberg files are encrypted (key metadata), which is not read natively", scan.Encrypted)
	}
	var schemes []string
	if r, err := n.Raw("schemes"); err == nil {
		_ = json.Unmarshal(r, &schemes)
	}
	for _, s := range schemes {
		switch s {
		case "", "file":
		case "s3", "s3a", "s3n":
			// Without both keys the native reader takes the AWS default chain, as Iceberg's S3FileIO
			// and S3A do; a provider that is a Java class keeps the scan where it can authenticate.
			if why := scan.Storage.Config.CredentialsRefused; why != "" {
				return nil, fmt.Errorf("Iceberg files on S3 are read by Iceberg Java: %s", why)
			}
		default:
			return nil, fmt.Errorf("Iceberg files on %q storage are not read natively yet (local files and S3 are)", s)
		}
	}
	if len(scan.Columns) != len(n.Output) {
		return nil, fmt.Errorf("the Iceberg scan describes %d columns, its output has %d", len(scan.Columns), len(n.Output))
	}
	out := make([]sparktype.Field, len(n.Output))
	for i, a := range n.Output {
		f, err := a.Field()
		if err != nil {
			return nil, err
		}
		c := scan.Columns[i]
		switch {
		case c.ID == iceberg.PartitionID:
			return nil, fmt.Errorf("the Iceberg metadata column %s (a struct) is not read natively", c.Name)
		case c.ID == iceberg.RowIDID || c.ID == iceberg.LastUpdatedSeqNoID:
			return nil, fmt.Errorf("the Iceberg row lineage column %s is not read natively", c.Name)
		}
		if r, refused := iceberg.RefusedType(c.IcebergType); refused {
			return nil, fmt.Errorf("column %s of Iceberg type %s is not read natively (%s)", c.Name, c.IcebergType, r.Note)
		}
		if f.Type.Nested() {
			// Structs, lists and maps of readable types: the Parquet reader assembles them,
			// matching their fields by id at every level; operators above decide whether they
			// accept them.
			if !f.Type.Readable() {
				return nil, fmt.Errorf("column %s of type %s is not supported natively", f.Name, f.Type)
			}
			c.Type = f.Type
			if _, err := c.FieldNode(); err != nil {
				return nil, err
			}
		} else if !f.Type.Supported() {
			return nil, fmt.Errorf("column %s of type %s is not supported natively", f.Name, f.Type)
		}
		if len(c.Default) > 0 && string(c.Default) != "null" {
			if _, err := plan.DecodeValue(c.Default, f.Type); err != nil {
				return nil, fmt.Errorf("column %s: initial default: %w", c.Name, err)
			}
		}
		out[i] = f
	}
	return ops.NewIcebergScan(strconv.Itoa(n.ID), &scan, out), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown source"
	}
	return s
}
