package translate

import (
	"encoding/json"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

// node is a plan node of a class with children; joins get a join type (and a build side).
func orderNode(id int, class string, children ...*plan.Node) *plan.Node {
	n := &plan.Node{ID: id, Class: "org.apache.spark.sql.execution." + class, Children: children,
		Fields: map[string]json.RawMessage{}}
	switch class {
	case "SortMergeJoinExec":
		n.Fields["joinType"] = json.RawMessage(`"Inner"`)
	case "ShuffledHashJoinExec":
		n.Fields["joinType"] = json.RawMessage(`"Inner"`)
		n.Fields["buildSide"] = json.RawMessage(`"BuildLeft"`)
	}
	return n
}

// Which sort-merge joins lose their streamed side's sort: only those whose order nothing above
// can read.
func TestElideUnreadOrder(t *testing.T) {
	smj := func(id int) *plan.Node {
		return orderNode(id, "SortMergeJoinExec", orderNode(id+1, "SortExec", orderNode(id+2, "ScanExec")),
			orderNode(id+3, "SortExec", orderNode(id+4, "ScanExec")))
	}
	cases := []struct {
		name     string
		root     *plan.Node
		spark    map[int]bool // ids of nodes that stay in Spark
		elided   bool         // the streamed sort (id 11) of the join (id 10)
		rootFree bool         // nothing reads the root's order
	}{
		{"under an aggregate", orderNode(0, "HashAggregateExec", orderNode(1, "ProjectExec", smj(10))), nil, true, false},
		{"under an exchange", orderNode(0, "ShuffleExchangeExec", orderNode(1, "FilterExec", smj(10))), nil, true, false},
		{"the root", orderNode(0, "ProjectExec", smj(10)), nil, false, false},
		{"the root of a query without order", orderNode(0, "ProjectExec", smj(10)), nil, true, true},
		{"under a Spark operator", orderNode(0, "HashAggregateExec", orderNode(1, "WindowExec", smj(10))),
			map[int]bool{1: true}, false, false},
		{"under a native window-like unknown", orderNode(0, "HashAggregateExec", orderNode(1, "ExpandExec", smj(10))), nil, false, false},
		{"streamed side of a parent merge join read", orderNode(0, "ProjectExec",
			orderNode(1, "SortMergeJoinExec", smj(10), orderNode(2, "ScanExec"))), nil, false, false},
		{"streamed side of a parent merge join not read", orderNode(0, "HashAggregateExec",
			orderNode(1, "SortMergeJoinExec", smj(10), orderNode(2, "ScanExec"))), nil, true, false},
		{"build side of a hash join", orderNode(0, "ProjectExec",
			orderNode(1, "ShuffledHashJoinExec", smj(10), orderNode(2, "ScanExec"))), nil, true, false},
		{"streamed side of a hash join", orderNode(0, "ProjectExec",
			orderNode(1, "ShuffledHashJoinExec", orderNode(2, "ScanExec"), smj(10))), nil, false, false},
	}
	for _, c := range cases {
		resp := &plan.PlanResponse{}
		var add func(n *plan.Node)
		add = func(n *plan.Node) {
			for _, ch := range n.Children {
				add(ch)
			}
			resp.Decisions = append(resp.Decisions, plan.Decision{ID: n.ID, Native: !c.spark[n.ID]})
		}
		add(c.root)
		elideUnreadOrder(c.root, resp, !c.rootFree)
		var sortD, joinD plan.Decision
		for _, d := range resp.Decisions {
			switch d.ID {
			case 11:
				sortD = d
			case 10:
				joinD = d
			}
		}
		if sortD.Elided != c.elided || joinD.Unordered != c.elided {
			t.Errorf("%s: streamed sort elided %v, join unordered %v; want %v", c.name, sortD.Elided, joinD.Unordered, c.elided)
		}
	}
}

// Hash joins whose order nothing reads are marked unordered: free to partition to disk.
func TestUnreadHashJoinsAreUnordered(t *testing.T) {
	shj := func(id int) *plan.Node {
		return orderNode(id, "ShuffledHashJoinExec", orderNode(id+1, "ScanExec"), orderNode(id+2, "ScanExec"))
	}
	cases := []struct {
		name      string
		root      *plan.Node
		spark     map[int]bool
		unordered bool
		rootFree  bool
	}{
		{"under an aggregate", orderNode(0, "HashAggregateExec", orderNode(1, "FilterExec", shj(10))), nil, true, false},
		{"under an exchange", orderNode(0, "ShuffleExchangeExec", shj(10)), nil, true, false},
		{"the root", orderNode(0, "ProjectExec", shj(10)), nil, false, false},
		{"the root of a query without order", orderNode(0, "ProjectExec", shj(10)), nil, true, true},
		{"under a Spark operator of a query without order", orderNode(0, "WindowExec", shj(10)),
			map[int]bool{0: true}, false, true},
		{"under a limit at the root", orderNode(0, "GlobalLimitExec", shj(10)), nil, false, false},
		{"under a Spark operator", orderNode(0, "HashAggregateExec", orderNode(1, "WindowExec", shj(10))),
			map[int]bool{1: true}, false, false},
		{"in Spark itself", orderNode(0, "HashAggregateExec", shj(10)), map[int]bool{10: true}, false, false},
	}
	for _, c := range cases {
		resp := &plan.PlanResponse{}
		var add func(n *plan.Node)
		add = func(n *plan.Node) {
			for _, ch := range n.Children {
				add(ch)
			}
			resp.Decisions = append(resp.Decisions, plan.Decision{ID: n.ID, Native: !c.spark[n.ID]})
		}
		add(c.root)
		elideUnreadOrder(c.root, resp, !c.rootFree)
		for _, d := range resp.Decisions {
			if d.ID == 10 && d.Unordered != c.unordered {
				t.Errorf("%s: join unordered %v, want %v", c.name, d.Unordered, c.unordered)
			}
		}
	}
}
