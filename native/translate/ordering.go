package translate

import (
	"github.com/bolide-dev/bolide/native/ops/join"
	"github.com/bolide-dev/bolide/native/plan"
)

// A native sort-merge join is a hash join that keeps its streamed side's order, so that the
// ordering Spark's plan relies on holds (SortMergeJoinExec.outputOrdering). When nothing above the
// join reads that order, the streamed side's sort only costs: elideUnreadOrder then drops it too
// and marks the join unordered (the JVM reports no output ordering for it). Every hash join whose
// order nothing reads is marked unordered too: it may then partition a build side larger than the
// task's memory to disk with its probe side (join.Spec.MayReorder), which changes its order. The
// JVM sends the mark back with the block (the node's "_unordered" field).
//
// Who reads an order is decided conservatively, from the root down: a Spark operator may rely on
// the order of anything below it, and so may the plan's root (rootRead; Spark removes a sort whose
// child's order satisfies it), unless the JVM found no sort and no limit in the query it comes
// from (PlanRequest.RootOrderFree); an exchange, a hash aggregate, a sort or a top-k does not, and neither does
// a join's build side; filters, projections, limits and a join's streamed side pass the question
// on to their parent. Everything else is assumed to read it.
func elideUnreadOrder(root *plan.Node, resp *plan.PlanResponse, rootRead bool) {
	byID := make(map[int]*plan.Decision, len(resp.Decisions))
	for i := range resp.Decisions {
		byID[resp.Decisions[i].ID] = &resp.Decisions[i]
	}
	var walk func(n *plan.Node, read bool)
	walk = func(n *plan.Node, read bool) {
		d := byID[n.ID]
		native := d != nil && d.Native
		for i, c := range n.Children {
			walk(c, !native || childOrderRead(n, i, read))
		}
		if !native || read {
			return
		}
		switch plan.ShortClass(n.Class) {
		case "BroadcastHashJoinExec", "ShuffledHashJoinExec":
			// Free to reorder: a build side larger than memory may go to disk (ops/join/grace.go).
			d.Unordered = true
			return
		case "SortMergeJoinExec":
		default:
			return
		}
		d.Unordered = true
		if len(n.Children) != 2 {
			return
		}
		typ, err := joinTypeOf(n)
		if err != nil {
			return
		}
		stream := 0
		if sortMergeBuildSide(typ) == join.BuildLeft {
			stream = 1
		}
		c := n.Children[stream]
		if cd := byID[c.ID]; cd != nil && cd.Native && plan.ShortClass(c.Class) == "SortExec" {
			cd.Elided = true
		}
	}
	walk(root, rootRead)
}

// childOrderRead says whether the order of native node n's child i can be read above n, given
// whether n's own order can (read).
func childOrderRead(n *plan.Node, i int, read bool) bool {
	switch plan.ShortClass(n.Class) {
	case "ShuffleExchangeExec", "BroadcastExchangeExec", "HashAggregateExec", "SortAggregateExec",
		"SortExec", "TakeOrderedAndProjectExec":
		return false
	case "ProjectExec", "FilterExec", "LocalLimitExec", "GlobalLimitExec", "CollectLimitExec":
		return read
	case "SortMergeJoinExec":
		typ, err := joinTypeOf(n)
		if err != nil {
			return true
		}
		streamed := 0
		if sortMergeBuildSide(typ) == join.BuildLeft {
			streamed = 1
		}
		return i == streamed && read
	case "BroadcastHashJoinExec", "ShuffledHashJoinExec", "BroadcastNestedLoopJoinExec":
		b, err := buildSideOf(n)
		if err != nil {
			return true
		}
		streamed := 0
		if b == join.BuildLeft {
			streamed = 1
		}
		return i == streamed && read
	}
	return true
}
