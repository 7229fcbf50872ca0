package translate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "BroadcastExchangeExec", Name: "BolideBroadcastExchange",
		ConfKey: "broadcastExchange",
		Doc: "the build side of broadcast joins (HashedRelationBroadcastMode, null-aware too, and the " +
			"nested loop joins' IdentityBroadcastMode), collected as compressed Arrow blocks (the " +
			"shuffle's encoding) and broadcast; a native hash join builds its table from it once per " +
			"executor, shared by the tasks and held in Spark's storage memory (a nested loop join " +
			"decodes it in every task); a join that stays in Spark gets Spark's relation for the " +
			"mode, built from it once on the driver.",
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
	// The mode only matters to a consumer that stays in Spark (the JVM builds its relation with
	// mode.transform); native consumers read the rows. A case object comes as its name.
	var name string
	if json.Unmarshal(raw, &name) != nil {
		var mode plan.Product
		if err := json.Unmarshal(raw, &mode); err != nil || mode.Class == "" {
			return nil, fmt.Errorf("broadcast mode %s is not supported natively", raw)
		}
		name = plan.ShortClass(mode.Class)
	}
	switch strings.TrimSuffix(name, "$") {
	case "HashedRelationBroadcastMode", "IdentityBroadcastMode":
	default:
		return nil, fmt.Errorf("broadcast mode %s is not supported natively", name)
	}
	for _, f := range children[0].Schema() {
		if !f.Type.Supported() {
			return nil, fmt.Errorf("column %s of type %s cannot be broadcast natively", f.Name, f.Type)
		}
	}
	return &broadcastExchange{child: children[0]}, nil
}
