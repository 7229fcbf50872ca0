// Package translate owns the mapping from Spark physical plan nodes (by class) to native
// operators, and the planning pass that decides, with a reason for each refusal, which nodes of a
// Spark plan run natively. One file per Spark node family.
package translate

import (
	"fmt"
	"sort"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
)

// Builder builds the operator of one node over already built children. An error is the fallback
// reason shown to the user. Builders validate everything at construction: a node that builds at
// planning time must run.
type Builder func(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error)

// Rule describes how one Spark node class becomes a native operator.
type Rule struct {
	// SparkClass is the short class name, e.g. "FilterExec".
	SparkClass string
	// Name is the operator name shown in plans, e.g. "BolideFilter".
	Name string
	// ConfKey names the operator in spark.bolide.exec.<ConfKey>.enabled.
	ConfKey string
	Doc     string
	Build   Builder
	// EndsBlock: the native operator does only the per-partition part of the Spark node, and a
	// Spark wrapper the rest (TakeOrderedAndProject), so a parent never joins its block: the
	// parent reads the wrapper's output as an input from Spark.
	EndsBlock bool
	// Redundant (nil: none) names children of a node that the native operator makes redundant
	// (a sort-merge join's build-side sort): when such a child runs natively it is not run at all,
	// its own child taking its place under the node.
	Redundant func(n *plan.Node) []int
}

var rules = map[string]Rule{}

// Register adds a node rule; called from init functions of the family files.
func Register(r Rule) {
	if _, dup := rules[r.SparkClass]; dup {
		panic("translate: duplicate rule for " + r.SparkClass)
	}
	rules[r.SparkClass] = r
}

// Rules lists the registered node rules sorted by Spark class, for the generated support document.
func Rules() []Rule {
	out := make([]Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SparkClass < out[j].SparkClass })
	return out
}

func ruleFor(n *plan.Node, conf *plan.Conf) (Rule, error) {
	short := plan.ShortClass(n.Class)
	r, ok := rules[short]
	if !ok {
		return Rule{}, fmt.Errorf("%s is not supported natively", short)
	}
	if !conf.OperatorEnabled(r.ConfKey) {
		return Rule{}, fmt.Errorf("%s is disabled by spark.bolide.exec.%s.enabled=false", short, r.ConfKey)
	}
	return r, nil
}
