package translate

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops/sort"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/shuffle"
	"github.com/bolide-dev/bolide/native/sparkhash"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "ShuffleExchangeExec", Name: "BolideShuffleExchange", ConfKey: "shuffle",
		Doc: "hash (Spark's Murmur3 partition ids, bit for bit), range (Spark's sampled bounds), " +
			"single and round-robin partitioning; map tasks write compressed Arrow blocks " +
			"(spark.bolide.shuffle.compression.codec) in Spark's shuffle files, reduce tasks decode " +
			"them natively. Needs the Bolide shuffle manager; the encoded blocks are held in task " +
			"memory and spilled to the executor's local dirs when memory is refused or Spark asks.",
		Build: buildShuffle, EndsBlock: true})
}

// ShuffleCodecKey is the setting naming the shuffle block codec.
const ShuffleCodecKey = "spark.bolide.shuffle.compression.codec"

// partitioningKind is how an exchange assigns rows to partitions.
type partitioningKind int

const (
	hashPartitioning partitioningKind = iota
	rangePartitioning
	singlePartition
	roundRobinPartitioning
)

// ShuffleExchange is a native shuffle's map side: its child's batches, and how to partition them.
// As an operator it passes the child's batches through (planning builds it like any node); a
// shuffle map task hands Child and NewPartitioner to shuffle.Write.
type ShuffleExchange struct {
	Child         exec.Operator
	kind          partitioningKind
	numPartitions int
	keys          []expr.Expr
	orders        []shuffle.RangeOrder
	keyTypes      []sparktype.Type
	bounds        [][]json.RawMessage
}

func (s *ShuffleExchange) Schema() []sparktype.Field        { return s.Child.Schema() }
func (s *ShuffleExchange) Open(ctx *exec.TaskContext) error { return s.Child.Open(ctx) }
func (s *ShuffleExchange) Next() (*columnar.Batch, error)   { return s.Child.Next() }
func (s *ShuffleExchange) Close()                           { s.Child.Close() }
func (s *ShuffleExchange) NumPartitions() int               { return s.numPartitions }

// NewPartitioner builds the task's partitioner; range bounds are materialized from ctx.Alloc.
func (s *ShuffleExchange) NewPartitioner(ctx *exec.TaskContext) (shuffle.Partitioner, error) {
	switch s.kind {
	case hashPartitioning:
		return shuffle.NewHashPartitioner(s.keys, s.numPartitions)
	case singlePartition:
		return shuffle.NewSinglePartitioner(), nil
	case roundRobinPartitioning:
		return shuffle.NewRoundRobinPartitioner(s.numPartitions, ctx.PartitionIndex), nil
	}
	b, err := boundsBatch(ctx, s.keyTypes, s.bounds)
	if err != nil {
		return nil, err
	}
	// The partitioner owns the bounds from here, on error too.
	return shuffle.NewRangePartitioner(s.keys, s.orders, b)
}

// AsShuffleExchange finds the exchange at the root of a built block (under its guard).
func AsShuffleExchange(op exec.Operator) (*ShuffleExchange, bool) {
	if g, ok := op.(*exec.Guarded); ok {
		op = g.Inner
	}
	s, ok := op.(*ShuffleExchange)
	return s, ok
}

func buildShuffle(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	// A broadcast's build side is encoded by a single-partition write too; it needs no shuffle
	// manager (the blocks travel in a Spark broadcast).
	if conf.ShuffleUnavailable != "" && !isBroadcastEncode(n) {
		return nil, fmt.Errorf("%s", conf.ShuffleUnavailable)
	}
	if len(children) != 1 {
		return nil, fmt.Errorf("ShuffleExchangeExec with %d children", len(children))
	}
	if c, ok := conf.Settings[ShuffleCodecKey]; ok {
		if _, err := shuffle.ParseCodec(c); err != nil {
			return nil, fmt.Errorf("%s=%s: %w", ShuffleCodecKey, c, err)
		}
	}
	if err := checkPassThrough(n, children[0]); err != nil {
		return nil, err
	}
	for _, f := range children[0].Schema() {
		if !f.Type.Supported() {
			return nil, fmt.Errorf("column %s of type %s cannot be shuffled natively", f.Name, f.Type)
		}
	}
	s := &ShuffleExchange{Child: children[0]}
	raw, err := n.Raw("outputPartitioning")
	if err != nil {
		return nil, err
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		// A case object: SinglePartition (others, like UnknownPartitioning, never reach an exchange).
		if name != "SinglePartition" {
			return nil, fmt.Errorf("partitioning %s is not supported natively", name)
		}
		s.kind, s.numPartitions = singlePartition, 1
		return s, nil
	}
	var p plan.Expr
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("decode outputPartitioning: %w", err)
	}
	num, err := p.Int("numPartitions")
	if err != nil {
		return nil, err
	}
	if num < 1 {
		return nil, fmt.Errorf("%s with %d partitions", plan.ShortClass(p.Class), num)
	}
	s.numPartitions = int(num)
	switch plan.ShortClass(p.Class) {
	case "HashPartitioning":
		s.kind = hashPartitioning
		es, err := p.Children("expressions")
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			k, err := expr.Translate(e, conf)
			if err != nil {
				return nil, fmt.Errorf("hash partitioning key: %w", err)
			}
			if !sparkhash.Hashable(k.Type()) {
				return nil, fmt.Errorf("hash partitioning key %s of type %s is not supported natively", k, k.Type())
			}
			s.keys = append(s.keys, k)
		}
		if _, err := shuffle.NewHashPartitioner(s.keys, s.numPartitions); err != nil {
			return nil, err
		}
	case "RangePartitioning":
		s.kind = rangePartitioning
		es, err := p.Children("ordering")
		if err != nil {
			return nil, err
		}
		orders, err := sort.DecodeOrders(es, conf, false)
		if err != nil {
			return nil, fmt.Errorf("range partitioning: %w", err)
		}
		for _, o := range orders {
			if !sort.KeyTypeSupported(o.Expr.Type()) {
				return nil, fmt.Errorf("range partitioning key %s of type %s is not supported natively", o.Expr, o.Expr.Type())
			}
			s.keys = append(s.keys, o.Expr)
			s.keyTypes = append(s.keyTypes, o.Expr.Type())
			s.orders = append(s.orders, shuffle.RangeOrder{Descending: o.Descending, NullsFirst: o.NullsFirst})
		}
		// The bounds arrive with a shuffle map task's plan (Spark samples them when the shuffle
		// runs); planning has none.
		if n.Has("rangeBounds") {
			if err := decodeNodeField(n, "rangeBounds", &s.bounds); err != nil {
				return nil, err
			}
			for i, row := range s.bounds {
				if len(row) != len(s.keys) {
					return nil, fmt.Errorf("range bound %d has %d values for %d keys", i, len(row), len(s.keys))
				}
			}
			s.numPartitions = len(s.bounds) + 1
		}
	case "RoundRobinPartitioning":
		if conf.SortBeforeRepartition {
			return nil, fmt.Errorf("round-robin partitioning with spark.sql.execution.sortBeforeRepartition=true " +
				"(Spark sorts the rows first so that a retried task partitions them alike) is not supported natively")
		}
		s.kind = roundRobinPartitioning
	default:
		return nil, fmt.Errorf("partitioning %s is not supported natively", plan.ShortClass(p.Class))
	}
	return s, nil
}

func isBroadcastEncode(n *plan.Node) bool {
	p, err := n.String("purpose")
	return err == nil && p == "broadcast"
}

func decodeNodeField(n *plan.Node, name string, v any) error {
	raw, err := n.Raw(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s field %s: %w", n.NodeName, name, err)
	}
	return nil
}

// boundsBatch builds one column per key from the encoded bound rows.
func boundsBatch(ctx *exec.TaskContext, types []sparktype.Type, rows [][]json.RawMessage) (*columnar.Batch, error) {
	cols := make([]arrow.Array, len(types))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for k, t := range types {
		var srcs []arrow.Array
		refs := make([]columnar.RowRef, len(rows))
		for i, row := range rows {
			v, err := plan.DecodeValue(row[k], t)
			if err != nil {
				release()
				for _, s := range srcs {
					s.Release()
				}
				return nil, fmt.Errorf("range bound %d key %d: %w", i, k, err)
			}
			if v == nil {
				refs[i] = columnar.NullRef
				continue
			}
			one, err := columnar.Constant(ctx.Alloc, t, v, 1)
			if err != nil {
				release()
				for _, s := range srcs {
					s.Release()
				}
				return nil, err
			}
			refs[i] = columnar.RowRef{Src: uint32(len(srcs))}
			srcs = append(srcs, one)
		}
		var err error
		if len(srcs) == 0 {
			cols[k] = array.MakeArrayOfNull(ctx.Alloc, t.Arrow(), len(rows))
		} else {
			cols[k], err = columnar.Gather(ctx.Alloc, srcs, refs)
		}
		for _, s := range srcs {
			s.Release()
		}
		if err != nil {
			release()
			return nil, fmt.Errorf("range bounds key %d: %w", k, err)
		}
	}
	return columnar.NewBatch(cols, len(rows)), nil
}
