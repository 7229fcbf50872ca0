// Package ops owns the native operators, one per file. Operators are built once per task from an
// immutable, validated description and stream batches through exec.Operator.
package ops

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/shuffle"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Input is the leaf of a native block that reads a child staying in Spark, batch by batch, from the
// JVM (an Arrow C Data batch per call).
type Input struct {
	index  int
	schema []sparktype.Field
	src    exec.InputSource
	// frames decodes the input when the JVM delivers a native shuffle's blocks instead of batches.
	frames exec.Operator
}

// NewInput builds the input leaf for child n; index is -1 at planning time.
func NewInput(index int, n *plan.Node) (*Input, error) {
	fields, err := n.OutputFields()
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		if !f.Type.Supported() {
			return nil, fmt.Errorf("input from %s has column %s of type %s, not supported natively",
				n.NodeName, f.Name, f.Type)
		}
	}
	return &Input{index: index, schema: fields}, nil
}

func (in *Input) Schema() []sparktype.Field { return in.schema }

func (in *Input) Open(ctx *exec.TaskContext) error {
	if fs, ok := ctx.Frames[in.index]; ok {
		in.frames = shuffle.NewReader(in.schema, fs, ctx.BatchSize())
		return in.frames.Open(ctx)
	}
	if in.index < 0 || in.index >= len(ctx.Inputs) || ctx.Inputs[in.index] == nil {
		return fmt.Errorf("native block input %d not provided (task has %d inputs)", in.index, len(ctx.Inputs))
	}
	in.src = ctx.Inputs[in.index]
	return nil
}

func (in *Input) Next() (*columnar.Batch, error) {
	if in.frames != nil {
		return in.frames.Next()
	}
	if in.src == nil {
		return nil, fmt.Errorf("input %d read before Open", in.index)
	}
	b, err := in.src.Next()
	if err != nil || b == nil {
		return nil, err
	}
	return conform(b, in.schema, fmt.Sprintf("input %d", in.index))
}

// conform checks that a batch from the JVM has the columns a plan expects and retags timestamps:
// Spark tags them with the session zone, the values are UTC micros either way. It takes over b.
func conform(b *columnar.Batch, schema []sparktype.Field, what string) (*columnar.Batch, error) {
	if len(b.Cols) != len(schema) {
		b.Release()
		return nil, fmt.Errorf("%s delivered %d columns, expected %d", what, len(b.Cols), len(schema))
	}
	for i, c := range b.Cols {
		want := schema[i].Type.Arrow()
		if arrow.TypeEqual(c.DataType(), want) {
			continue
		}
		if c.DataType().ID() == arrow.TIMESTAMP && want.ID() == arrow.TIMESTAMP {
			d := array.NewData(want, c.Len(), c.Data().Buffers(), nil, c.NullN(), c.Data().Offset())
			b.Cols[i] = array.MakeFromData(d)
			d.Release()
			c.Release()
			continue
		}
		b.Release()
		return nil, fmt.Errorf("%s column %s is %s, expected %s", what, schema[i].Name, c.DataType(), want)
	}
	return b, nil
}

func (in *Input) Close() {
	if in.frames != nil {
		in.frames.Close()
	}
}
