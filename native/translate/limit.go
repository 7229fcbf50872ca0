package translate

import (
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "LocalLimitExec", Name: "BolideLocalLimit", ConfKey: "localLimit",
		Doc: "per-partition limit", Build: buildLimit})
	Register(Rule{SparkClass: "GlobalLimitExec", Name: "BolideGlobalLimit", ConfKey: "globalLimit",
		Doc: "rows [offset, limit) of the single partition Spark's exchange produces", Build: buildLimit})
	Register(Rule{SparkClass: "CollectLimitExec", Name: "BolideCollectLimit", ConfKey: "collectLimit",
		Doc: "limit rows per partition natively (Spark's limit counts the offset rows); Spark's " +
			"CollectLimit logic then takes the first rows (scanning partitions incrementally) or " +
			"gathers them in one partition, and drops the offset",
		Build: buildCollectLimit})
}

// limitOffset reads Spark's limit and (absent before offsets existed) offset fields.
func limitOffset(n *plan.Node) (limit, offset int64, err error) {
	if limit, err = n.Int("limit"); err != nil {
		return 0, 0, err
	}
	if n.Has("offset") {
		offset, err = n.Int("offset")
	}
	return limit, offset, err
}

// buildLimit: LocalLimitExec keeps `limit` rows; GlobalLimitExec(limit, offset) keeps rows
// [offset, limit) of its single partition (Spark's iter.slice(offset, limit): its limit counts the
// offset rows too), or drops `offset` rows when limit is -1.
func buildLimit(n *plan.Node, children []exec.Operator, _ *plan.Conf) (exec.Operator, error) {
	limit, offset, err := limitOffset(n)
	if err != nil {
		return nil, err
	}
	if offset > 0 && limit >= 0 {
		limit = max(limit-offset, 0)
	}
	return ops.NewLimit(children[0], limit, offset), nil
}

// buildCollectLimit keeps at most `limit` rows of each partition (Spark's limit counts the offset
// rows too: CollectLimitExec takes `limit` rows, then drops `offset`): the JVM's
// BolideCollectLimitExec applies the global limit and offset over those rows, as Spark does.
func buildCollectLimit(n *plan.Node, children []exec.Operator, _ *plan.Conf) (exec.Operator, error) {
	limit, _, err := limitOffset(n)
	if err != nil {
		return nil, err
	}
	return ops.NewLimit(children[0], limit, 0), nil
}
