// Package plan owns the wire form of Spark plans as the JVM adapter encodes them: a generic tree of
// nodes and expressions keyed by Spark class names and constructor field names. The JVM walks
// Spark's plan reflectively and knows nothing about which classes the engine supports; everything
// that interprets a class lives on the Go side (packages translate and expr).
//
// Encoding of a field value (see spark/.../PlanEncoder.scala):
//   - null, booleans, numbers, strings: as JSON (a Scala Char as a one-character string).
//   - an Expression: an object with "class" and "dataType" (type Expr).
//   - a Seq: a JSON array of encoded values.
//   - a Scala object or Enumeration value (aggregate mode, eval mode): its name as a string.
//   - a DataType: {"type": <DataType.json>}.
//   - a java.lang.Class (StaticInvoke's staticObject): its binary name as a string.
//   - a connector function (a BoundFunction: ApplyFunctionExpression's ScalarFunction):
//     {"class": ..., "fields": {"name": name(), "canonicalName": canonicalName() or null}}.
//   - any other Product (e.g. NumericEvalContext): {"class": ..., "fields": {...}}.
//   - anything else: {"unsupported": "<class name>"}.
package plan

import (
	"encoding/json"
	"fmt"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Attr is an output attribute of a plan node.
type Attr struct {
	Name     string          `json:"name"`
	ExprID   int64           `json:"exprId"`
	DataType json.RawMessage `json:"dataType"`
	Nullable bool            `json:"nullable"`
}

// Type parses the attribute's Spark type.
func (a Attr) Type() (sparktype.Type, error) { return sparktype.Parse(a.DataType) }

// Field returns the attribute as a native schema field.
func (a Attr) Field() (sparktype.Field, error) {
	t, err := a.Type()
	return sparktype.Field{Name: a.Name, Type: t, Nullable: a.Nullable}, err
}

// Node is one physical plan node.
type Node struct {
	// ID numbers the node in pre-order within the encoded tree; planning answers refer to it.
	ID       int                        `json:"id"`
	Class    string                     `json:"class"`
	NodeName string                     `json:"nodeName"`
	Output   []Attr                     `json:"output"`
	Fields   map[string]json.RawMessage `json:"fields"`
	Children []*Node                    `json:"children"`
	// Input is set on the leaves the JVM substitutes for children that stay in Spark: the index of
	// the input stream (in the task's list of inputs) that delivers that child's batches.
	Input *int `json:"input,omitempty"`
}

// Expr is one Catalyst expression.
type Expr struct {
	Class         string                     `json:"class"`
	DataType      json.RawMessage            `json:"dataType"`
	Nullable      bool                       `json:"nullable"`
	Deterministic bool                       `json:"deterministic"`
	Fields        map[string]json.RawMessage `json:"fields"`
	// For attribute references: the exprId and the position of the attribute in the owning node's
	// children's output (children concatenated), -1 when it refers to no child column.
	ExprID  *int64 `json:"exprId,omitempty"`
	Ordinal *int   `json:"ordinal,omitempty"`
	Name    string `json:"name,omitempty"`
	// ID numbers the expression within its encoding (PlanEncoder): a block's task asks the JVM
	// to evaluate expression ID with Spark's code (expressions dispatched to the JVM, expr.Dispatch).
	ID *int `json:"id,omitempty"`

	// src is the parsed request this expression was decoded from, fieldsAt the position of its
	// "fields" object in it (-1: none), so that its children decode without rescanning their
	// bytes (decode.go). Expressions built otherwise have no src.
	src      *tree
	fieldsAt int32
}

// Type parses the expression's Spark result type.
func (e *Expr) Type() (sparktype.Type, error) { return sparktype.Parse(e.DataType) }

// ShortClass is the class name without its package, as Spark prints it.
func ShortClass(class string) string {
	for i := len(class) - 1; i >= 0; i-- {
		if class[i] == '.' || class[i] == '$' {
			if i == len(class)-1 {
				continue
			}
			return class[i+1:]
		}
	}
	return class
}

func get(fs map[string]json.RawMessage, owner, name string) (json.RawMessage, error) {
	v, ok := fs[name]
	if !ok {
		return nil, fmt.Errorf("%s has no field %q", owner, name)
	}
	return v, nil
}

func decode[T any](fs map[string]json.RawMessage, owner, name string) (T, error) {
	var out T
	raw, err := get(fs, owner, name)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("%s field %q: %w", owner, name, err)
	}
	return out, nil
}

// Has reports whether the node has a constructor field of that name.
func (n *Node) Has(name string) bool { _, ok := n.Fields[name]; return ok }

// Expr decodes a field holding one expression (nil for a JSON null).
func (n *Node) Expr(name string) (*Expr, error) {
	if raw, ok := n.Fields[name]; ok {
		if t, i, ok := parse(raw); ok {
			if e, ok := fastExpr(t, i); ok {
				return e, nil
			}
		}
	}
	return decode[*Expr](n.Fields, n.NodeName, name)
}

// Exprs decodes a field holding a sequence of expressions.
func (n *Node) Exprs(name string) ([]*Expr, error) {
	if raw, ok := n.Fields[name]; ok {
		if t, i, ok := parse(raw); ok {
			if es, ok := fastExprs(t, i); ok {
				return es, nil
			}
		}
	}
	return decode[[]*Expr](n.Fields, n.NodeName, name)
}

// String decodes a string field (also Scala objects and enumeration values).
func (n *Node) String(name string) (string, error) { return decode[string](n.Fields, n.NodeName, name) }

// Int decodes an integral field.
func (n *Node) Int(name string) (int64, error) { return decode[int64](n.Fields, n.NodeName, name) }

// Bool decodes a boolean field.
func (n *Node) Bool(name string) (bool, error) { return decode[bool](n.Fields, n.NodeName, name) }

// Raw returns a field's encoded value.
func (n *Node) Raw(name string) (json.RawMessage, error) { return get(n.Fields, n.NodeName, name) }

// OutputFields returns the node's output as a native schema.
func (n *Node) OutputFields() ([]sparktype.Field, error) {
	out := make([]sparktype.Field, len(n.Output))
	for i, a := range n.Output {
		f, err := a.Field()
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// Has reports whether the expression has a constructor field of that name.
func (e *Expr) Has(name string) bool { _, ok := e.Fields[name]; return ok }

// Child decodes a field holding one expression.
func (e *Expr) Child(name string) (*Expr, error) {
	if raw, ok := e.Fields[name]; ok {
		if t, i, ok := e.locate(name, raw); ok {
			if c, ok := fastExpr(t, i); ok {
				if c == nil {
					return nil, fmt.Errorf("%s field %q is null", ShortClass(e.Class), name)
				}
				return c, nil
			}
		}
	}
	c, err := decode[*Expr](e.Fields, ShortClass(e.Class), name)
	if err == nil && c == nil {
		err = fmt.Errorf("%s field %q is null", ShortClass(e.Class), name)
	}
	return c, err
}

// Children decodes a field holding a sequence of expressions.
func (e *Expr) Children(name string) ([]*Expr, error) {
	if raw, ok := e.Fields[name]; ok {
		if t, i, ok := e.locate(name, raw); ok {
			if es, ok := fastExprs(t, i); ok {
				return es, nil
			}
		}
	}
	return decode[[]*Expr](e.Fields, ShortClass(e.Class), name)
}

// String decodes a string field (also Scala objects and enumeration values).
func (e *Expr) String(name string) (string, error) {
	return decode[string](e.Fields, ShortClass(e.Class), name)
}

// Int decodes an integral field.
func (e *Expr) Int(name string) (int64, error) {
	return decode[int64](e.Fields, ShortClass(e.Class), name)
}

// Bool decodes a boolean field.
func (e *Expr) Bool(name string) (bool, error) {
	return decode[bool](e.Fields, ShortClass(e.Class), name)
}

// Raw returns a field's encoded value.
func (e *Expr) Raw(name string) (json.RawMessage, error) {
	return get(e.Fields, ShortClass(e.Class), name)
}

// Product is an encoded case class that is not an expression (e.g. NumericEvalContext).
type Product struct {
	Class  string                     `json:"class"`
	Fields map[string]json.RawMessage `json:"fields"`
}

// Product decodes a field holding a non-expression case class.
func (e *Expr) Product(name string) (*Product, error) {
	return decode[*Product](e.Fields, ShortClass(e.Class), name)
}

// String decodes a string field of a product.
func (p *Product) String(name string) (string, error) {
	return decode[string](p.Fields, ShortClass(p.Class), name)
}

// Bool decodes a boolean field of a product.
func (p *Product) Bool(name string) (bool, error) {
	return decode[bool](p.Fields, ShortClass(p.Class), name)
}

// TypeValue is an encoded DataType field value ({"type": ...}).
type TypeValue struct {
	Type json.RawMessage `json:"type"`
}

// DataTypeField decodes a field holding a DataType (e.g. Cast's target type).
func (e *Expr) DataTypeField(name string) (sparktype.Type, error) {
	tv, err := decode[TypeValue](e.Fields, ShortClass(e.Class), name)
	if err != nil {
		return sparktype.Type{}, err
	}
	return sparktype.Parse(tv.Type)
}

// Literal values (class Literal, field "value") are encoded by the JVM according to dataType:
//   - boolean: JSON bool; byte/short/int/long/date/timestamp(_ntz): JSON integer
//   - float/double: {"bits": <raw IEEE bits as integer>} (exact, NaN and infinities included)
//   - decimal: {"unscaled": "<decimal digits>", "precision": p, "scale": s}
//   - string/binary: {"b64": "<base64 of the bytes>"} (strings may hold invalid UTF-8)
//   - null: JSON null
type FloatBits struct {
	Bits *int64 `json:"bits"`
}

// DecimalValue is an encoded decimal literal.
type DecimalValue struct {
	Unscaled  string `json:"unscaled"`
	Precision int32  `json:"precision"`
	Scale     int32  `json:"scale"`
}

// BytesValue is an encoded string or binary literal.
type BytesValue struct {
	B64 []byte `json:"b64"` // encoding/json decodes base64 into []byte
}

// Conf is the snapshot of session settings that change results, taken on the driver when the plan
// is encoded.
type Conf struct {
	SessionTimeZone string `json:"sessionTimeZone"`
	ANSI            bool   `json:"ansi"`
	CaseSensitive   bool   `json:"caseSensitive"`
	BatchSize       int    `json:"batchSize"`
	// ShuffleUnavailable says why shuffles cannot be native in this application (the Bolide
	// shuffle manager is not configured, say); empty when they can.
	ShuffleUnavailable string `json:"shuffleUnavailable"`
	// SortBeforeRepartition is spark.sql.execution.sortBeforeRepartition.
	SortBeforeRepartition bool `json:"sortBeforeRepartition"`
	// Enabled maps "spark.bolide.exec.<op>.enabled" keys to their values.
	Enabled map[string]bool `json:"enabled"`
	// Settings holds every other spark.bolide.* and result-changing spark.sql.* key.
	Settings map[string]string `json:"settings"`
}

// OperatorEnabled reads spark.bolide.exec.<op>.enabled (default true).
func (c *Conf) OperatorEnabled(op string) bool {
	if v, ok := c.Enabled["spark.bolide.exec."+op+".enabled"]; ok {
		return v
	}
	return true
}

// PlanRequest is what the driver sends to ask which nodes can run natively.
type PlanRequest struct {
	Conf Conf  `json:"conf"`
	Plan *Node `json:"plan"`
	// RootOrderFree: nothing reads the order of the plan's root (no ORDER BY or LIMIT in the query
	// it comes from); otherwise the root's order is taken as read.
	RootOrderFree bool `json:"rootOrderFree"`
}

// Decision is the engine's answer for one node.
type Decision struct {
	ID     int    `json:"id"`
	Native bool   `json:"native"`
	Name   string `json:"name,omitempty"`   // the Bolide operator name shown in plans
	Reason string `json:"reason,omitempty"` // why the node stays in Spark
	// Elided: a native node that its parent made redundant; the JVM replaces it by its child.
	Elided bool `json:"elided,omitempty"`
	// Unordered: a native node whose output order Spark's node would report, but which does not
	// keep it (nothing above reads it); the JVM reports no output ordering for it.
	Unordered bool `json:"unordered,omitempty"`
	// Dispatched names the classes of the node's expressions that the JVM evaluates for it
	// (expr.Dispatch), one entry per dispatched expression.
	Dispatched []string `json:"dispatched,omitempty"`
}

// PlanResponse answers a PlanRequest, one decision per node.
type PlanResponse struct {
	Decisions []Decision `json:"decisions"`
}

// PartitionedFile is one split of one file of a file scan, as Spark planned it for a task.
type PartitionedFile struct {
	Path     string `json:"path"`
	Start    int64  `json:"start"`
	Length   int64  `json:"length"`
	FileSize int64  `json:"fileSize"`
	// PartitionValues are encoded like literal values, in the order of the scan's partition schema.
	PartitionValues []json.RawMessage `json:"partitionValues"`
}

// TaskRequest is what a task sends to build its native block: the block's plan (encoded on the
// driver) and the task's own pieces (file splits per scan node id).
type TaskRequest struct {
	Conf  Conf                         `json:"conf"`
	Plan  *Node                        `json:"plan"`
	Files map[string][]PartitionedFile `json:"files"`
	// IcebergTasks are the task's Iceberg FileScanTasks per scan node id, in the form package
	// iceberg decodes.
	IcebergTasks map[string]json.RawMessage `json:"icebergTasks"`
	// PartitionIndex is the task's partition, for operators whose output depends on it.
	PartitionIndex int `json:"partitionIndex"`
	// Broadcasts maps an input index (as a string) to the Spark broadcast id it reads, for the
	// inputs that deliver a native broadcast.
	Broadcasts map[string]int64 `json:"broadcasts"`
	// Memory is what the executor knows of its memory: absent on the driver and in tests.
	Memory TaskMemory `json:"memory"`
}

// TaskMemory describes the executor's off-heap pool and where spill files go.
type TaskMemory struct {
	// Pool is spark.memory.offHeap.size when off-heap memory is on (0: unknown or off); the
	// reservation granularity scales with it.
	Pool int64 `json:"pool"`
	// SpillDirs are the executor's local directories (Spark's DiskBlockManager), for spill files.
	SpillDirs []string `json:"spillDirs"`
}
