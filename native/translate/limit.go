package translate

import (
	"errors"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "LocalLimitExec", Name: "BolideLocalLimit", ConfKey: "localLimit",
		Doc: "per-partition limit", Build: buildLimit})
	Register(Rule{SparkClass: "GlobalLimitExec", Name: "BolideGlobalLimit", ConfKey: "globalLimit",
		Doc: "limit and offset over the single partition Spark's exchange produces", Build: buildLimit})
	Register(Rule{SparkClass: "CollectLimitExec", Name: "BolideCollectLimit", ConfKey: "collectLimit",
		Doc: "not yet: needs a native single-partition exchange; its child still runs natively",
		Build: func(*plan.Node, []exec.Operator, *plan.Conf) (exec.Operator, error) {
			return nil, errors.New("CollectLimitExec stays in Spark until Bolide has a native " +
				"single-partition exchange (its child runs natively)")
		}})
}

func buildLimit(n *plan.Node, children []exec.Operator, _ *plan.Conf) (exec.Operator, error) {
	limit, err := n.Int("limit")
	if err != nil {
		return nil, err
	}
	var offset int64
	if n.Has("offset") {
		if offset, err = n.Int("offset"); err != nil {
			return nil, err
		}
	}
	return ops.NewLimit(children[0], limit, offset), nil
}
