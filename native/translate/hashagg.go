package translate

import (
	"fmt"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/ops/aggregate"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{
		SparkClass: "HashAggregateExec",
		Name:       "BolideHashAggregate",
		ConfKey:    "hashAggregate",
		Doc: "a mode per aggregate function (Partial, PartialMerge, Final, Complete, mixed as in " +
			"Spark's DISTINCT plans), FILTER clauses (not over an argument that can raise an error: " +
			"Spark may evaluate it on the rows the clause rejects); sum, count, min, max, avg over numeric types " +
			"(min/max also over string, binary, boolean, date, timestamp), first/last (with or " +
			"without IGNORE NULLS) over the same types; Spark's buffer layouts, so either half may " +
			"run in Spark. With grouping keys it spills when Spark refuses memory: final and complete " +
			"aggregates write their groups' buffers to hash-partitioned Arrow files on disk and merge them one " +
			"partition at a time; a partial aggregate emits its groups early (docs/tuning.md, Memory).",
		Build: buildHashAggregate,
	})
	// Spark picks ObjectHashAggregate when a function keeps an object buffer
	// (TypedImperativeAggregate: collect_list, collect_set, percentile, listagg); same fields as HashAggregateExec, and the
	// functions decide what is native (aggregate/collect.go).
	Register(Rule{
		SparkClass: "ObjectHashAggregateExec",
		Name:       "BolideHashAggregate",
		ConfKey:    "hashAggregate",
		Doc: "when a function keeps an object buffer, with Spark's serialized buffer bytes (either half may run " +
			"in Spark): collect_list without grouping keys in every mode; percentile and percentile_disc " +
			"(percentile_cont) over integral types and decimals of precision <= 18 with one constant percentage and " +
			"a constant frequency, with or without grouping keys, spilling like the hash aggregate; listagg/string_agg " +
			"over strings and binary ordered by the aggregated column (any keys) or unordered without grouping keys; " +
			"collect_set without grouping keys over integral types, dates, timestamps and strings, in the order of " +
			"Scala's HashSet, which the engine replays",
		Build: buildHashAggregate,
	})
	// Spark picks SortAggregate when a buffer is not fixed-width (min/max of strings). Without
	// grouping keys its output has no order to keep, so the hash aggregate computes it exactly;
	// with keys its parent may rely on sorted output, which a hash aggregate does not produce.
	Register(Rule{
		SparkClass: "SortAggregateExec",
		Name:       "BolideHashAggregate",
		ConfKey:    "hashAggregate",
		Doc:        "only without grouping keys (with keys Spark relies on its sorted output)",
		Build: func(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
			keys, err := n.Exprs("groupingExpressions")
			if err != nil {
				return nil, err
			}
			if len(keys) > 0 {
				return nil, fmt.Errorf("SortAggregate with grouping keys must keep its sorted output; " +
					"no native sort yet")
			}
			return buildHashAggregate(n, children, conf)
		},
	})
}

func buildHashAggregate(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("HashAggregateExec with %d children", len(children))
	}
	op, err := aggregate.New(n, children[0], conf)
	if err != nil {
		return nil, err
	}
	return op, nil
}
