package translate

import (
	"encoding/json"
	"fmt"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "BroadcastExchangeExec", Name: "BolideBroadcastExchange",
		ConfKey: "broadcastExchange",
		Doc: "the build side of hash joins (HashedRelationBroadcastMode), collected as compressed " +
			"Arrow blocks (the shuffle's encoding) and broadcast; native joins decode it in every " +
			"task, a join that stays in Spark gets Spark's HashedRelation built from it on the driver. " +
			"Not yet: null-aware anti joins' and nested loop joins' broadcasts.",
		Build: buildBroadcastExchange, EndsBlock: true})
}

// broadcastExchange only validates at planning time: the JVM runs the child and encodes its batches
// with a single-partition shuffle write (ShuffleExchange, purpose "broadcast").
type broadcastExchange struct{ child exec.Operator }

func (b *broadcastExchange) Schema() []sparktype.Field        { return b.child.Schema() }
func (b *broadcastExchange) Open(ctx *exec.TaskContext) error { return b.child.Open(ctx) }
func (b *broadcastExchange) Next() (*columnar.Batch, error)   { return b.child.Next() }
func (b *broadcastExchange) Close()                           { b.child.Close() }

func buildBroadcastExchange(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("BroadcastExchangeExec with %d children", len(children))
	}
	raw, err := n.Raw("mode")
	if err != nil {
		return nil, err
	}
	var mode plan.Product
	if err := json.Unmarshal(raw, &mode); err != nil || mode.Class == "" {
		return nil, fmt.Errorf("broadcast mode %s is not supported natively", raw)
	}
	switch plan.ShortClass(mode.Class) {
	case "HashedRelationBroadcastMode":
		if nullAware, err := mode.Bool("isNullAware"); err == nil && nullAware {
			return nil, fmt.Errorf("the broadcast of a null-aware anti join (NOT IN subquery) is not supported natively yet")
		}
	default:
		return nil, fmt.Errorf("broadcast mode %s (for nested loop joins) is not supported natively yet",
			plan.ShortClass(mode.Class))
	}
	for _, f := range children[0].Schema() {
		if !f.Type.Supported() {
			return nil, fmt.Errorf("column %s of type %s cannot be broadcast natively", f.Name, f.Type)
		}
	}
	return &broadcastExchange{child: children[0]}, nil
}
