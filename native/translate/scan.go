package translate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/parquet"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "FileSourceScanExec", Name: "BolideScan", ConfKey: "scan",
		Doc: "Parquet on local files: projection, row-group pruning by pushed filters (statistics and " +
			"bloom filters), page pruning by the page index, late materialization under a filter, Spark's " +
			"file splits, Hive-style partition columns, Spark's type widenings, ignoreCorruptFiles " +
			"and ignoreMissingFiles", Build: buildFileScan})
}

// The JVM's hand-written scan extractor sends: format (file format class), rootPaths,
// requiredSchema and partitionSchema (attribute lists), dataFilters (bound to the output),
// bucketed, and hasMetadataColumns.
func buildFileScan(n *plan.Node, _ []exec.Operator, _ *plan.Conf) (exec.Operator, error) {
	format, err := n.String("format")
	if err != nil {
		return nil, err
	}
	if format != "ParquetFileFormat" {
		return nil, fmt.Errorf("file format %s is not supported natively (Parquet only)", format)
	}
	if b, _ := n.Bool("bucketed"); b {
		return nil, fmt.Errorf("bucketed scans are not supported natively yet")
	}
	if d, _ := n.Bool("hasDynamicPruning"); d {
		return nil, fmt.Errorf("dynamic partition pruning is not supported natively yet")
	}
	if m, _ := n.Bool("hasMetadataColumns"); m {
		return nil, fmt.Errorf("file metadata columns (_metadata) are not supported natively yet")
	}
	var roots []string
	if raw, err := n.Raw("rootPaths"); err == nil {
		_ = json.Unmarshal(raw, &roots)
	}
	for _, r := range roots {
		if _, err := ops.LocalPath(r); err != nil {
			return nil, err
		}
	}
	data, err := attrFields(n, "requiredSchema")
	if err != nil {
		return nil, err
	}
	parts, err := attrFields(n, "partitionSchema")
	if err != nil {
		return nil, err
	}
	if len(n.Output) != len(data)+len(parts) {
		return nil, fmt.Errorf("scan output has %d columns, expected %d data + %d partition columns",
			len(n.Output), len(data), len(parts))
	}
	// Data columns may be nested (structs, arrays, maps of readable types): the Parquet reader
	// assembles them; operators above decide whether they accept them.
	for _, f := range data {
		if !f.Type.Readable() {
			return nil, fmt.Errorf("column %s of type %s is not supported natively", f.Name, f.Type)
		}
	}
	for _, f := range parts {
		if !f.Type.Supported() {
			return nil, fmt.Errorf("column %s of type %s is not supported natively", f.Name, f.Type)
		}
	}
	filters, _ := n.Exprs("dataFilters")
	var policy ops.FileErrorPolicy
	policy.IgnoreCorrupt, _ = n.Bool("ignoreCorruptFiles")
	policy.IgnoreMissing, _ = n.Bool("ignoreMissingFiles")
	return ops.NewParquetScan(strconv.Itoa(n.ID), data, parts, pruningPredicates(filters), policy), nil
}

func attrFields(n *plan.Node, name string) ([]sparktype.Field, error) {
	raw, err := n.Raw(name)
	if err != nil {
		return nil, err
	}
	var attrs []plan.Attr
	if err := json.Unmarshal(raw, &attrs); err != nil {
		return nil, fmt.Errorf("scan field %s: %w", name, err)
	}
	out := make([]sparktype.Field, len(attrs))
	for i, a := range attrs {
		if out[i], err = a.Field(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

var compareOps = map[string]string{
	"EqualTo": "=", "LessThan": "<", "LessThanOrEqual": "<=", "GreaterThan": ">", "GreaterThanOrEqual": ">=",
}

// pruningPredicates keeps the pushed filters that statistics can answer (column op literal, null
// checks, IN lists, conjunctions); the rest are simply not used for pruning.
func pruningPredicates(filters []*plan.Expr) []parquet.Predicate {
	var out []parquet.Predicate
	for _, f := range filters {
		out = appendPredicate(out, f)
	}
	return out
}

func appendPredicate(out []parquet.Predicate, e *plan.Expr) []parquet.Predicate {
	if e == nil {
		return out
	}
	short := plan.ShortClass(e.Class)
	switch short {
	case "And":
		l, _ := e.Child("left")
		r, _ := e.Child("right")
		return appendPredicate(appendPredicate(out, l), r)
	case "IsNull", "IsNotNull":
		c, err := e.Child("child")
		if col, ok := columnName(c); err == nil && ok {
			return append(out, parquet.Predicate{Column: col, Op: strings.ToLower(short)})
		}
	case "In":
		v, err1 := e.Child("value")
		list, err2 := e.Children("list")
		col, ok := columnName(v)
		if err1 != nil || err2 != nil || !ok {
			return out
		}
		vals := make([]parquet.Value, 0, len(list))
		for _, l := range list {
			lv, ok := literalValue(l)
			if !ok {
				return out
			}
			vals = append(vals, lv)
		}
		return append(out, parquet.Predicate{Column: col, Op: "in", Values: vals})
	}
	op, ok := compareOps[short]
	if !ok {
		return out
	}
	l, err1 := e.Child("left")
	r, err2 := e.Child("right")
	if err1 != nil || err2 != nil {
		return out
	}
	if col, ok := columnName(l); ok {
		if v, ok := literalValue(r); ok && v != nil {
			return append(out, parquet.Predicate{Column: col, Op: op, Values: []parquet.Value{v}})
		}
	}
	if col, ok := columnName(r); ok {
		if v, ok := literalValue(l); ok && v != nil {
			return append(out, parquet.Predicate{Column: col, Op: flipped[op], Values: []parquet.Value{v}})
		}
	}
	return out
}

func columnName(e *plan.Expr) (string, bool) {
	if e == nil || plan.ShortClass(e.Class) != "AttributeReference" {
		return "", false
	}
	if e.Name != "" {
		return e.Name, true
	}
	s, err := e.String("name")
	return s, err == nil
}

func literalValue(e *plan.Expr) (parquet.Value, bool) {
	if e == nil || plan.ShortClass(e.Class) != "Literal" {
		return nil, false
	}
	t, err := e.Type()
	if err != nil || !t.Supported() {
		return nil, false
	}
	raw, err := e.Raw("value")
	if err != nil {
		return nil, false
	}
	v, err := plan.DecodeValue(raw, t)
	return v, err == nil
}
