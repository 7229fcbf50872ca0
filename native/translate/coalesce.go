package translate

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "CoalesceExec", Name: "BolideCoalesce", ConfKey: "coalesce",
		Doc: "df.coalesce(n) and the COALESCE hint over a native block: the JVM's BolideCoalesce merges " +
			"the block's Arrow partitions as Spark merges row partitions (the same groups of " +
			"partitions), so the blocks below and above stay native; over an operator that stays " +
			"in Spark it stays in Spark",
		Build: buildCoalesce, EndsBlock: true})
}

// coalesce only validates at planning time: merging partitions is not a per-task operation, so
// the JVM (BolideCoalesceExec) coalesces the child block's columnar RDD, and a native parent reads
// the result as an input.
type coalesce struct{ child exec.Operator }

func (c *coalesce) Schema() []sparktype.Field        { return c.child.Schema() }
func (c *coalesce) Open(ctx *exec.TaskContext) error { return c.child.Open(ctx) }
func (c *coalesce) Next() (*columnar.Batch, error)   { return c.child.Next() }
func (c *coalesce) Close()                           { c.child.Close() }

func buildCoalesce(n *plan.Node, children []exec.Operator, _ *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("CoalesceExec with %d children", len(children))
	}
	np, err := n.Int("numPartitions")
	if err != nil {
		return nil, err
	}
	if np < 1 {
		return nil, fmt.Errorf("CoalesceExec to %d partitions", np)
	}
	// A child that stays in Spark (or ends its own native block: an exchange) produces rows or
	// Spark's batches: merging them natively would only add conversions.
	if _, fromSpark := children[0].(*ops.Input); fromSpark {
		return nil, fmt.Errorf("CoalesceExec stays in Spark over %s, which does not run as a native block",
			n.Children[0].NodeName)
	}
	return &coalesce{child: children[0]}, nil
}
