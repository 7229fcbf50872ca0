package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops/join"
	"github.com/bolide-dev/bolide/native/plan"
)

func init() {
	Register(Rule{SparkClass: "BroadcastHashJoinExec", Name: "BolideBroadcastHashJoin",
		ConfKey: "broadcastHashJoin",
		Doc: "inner, cross, left outer, left semi, left anti and existence joins building the right " +
			"side; inner, cross and right outer joins building the left side (the combinations Spark " +
			"plans); any number of keys of any native type except collated strings, compared as " +
			"Spark's HashedRelation does (null never matches, floating keys as normalized by Spark); " +
			"an optional extra condition; null-aware anti joins (`x NOT IN (subquery)`); the " +
			"streamed side's order kept. The build side arrives as an input and is held in task " +
			"memory; when it does not fit and nothing above the join reads its order, the join partitions " +
			"both sides to disk (as the shuffled hash join). Not yet: LeftSingle joins.",
		Build: func(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
			return buildHashJoin(n, children, conf, broadcastJoin)
		}})
	Register(Rule{SparkClass: "ShuffledHashJoinExec", Name: "BolideShuffledHashJoin",
		ConfKey: "shuffledHashJoin",
		Doc: "every join type Spark's ShuffledHashJoinExec runs (inner, cross, left/right/full outer, " +
			"left semi, left anti, existence), building the side Spark chose, with the keys and " +
			"conditions of BolideBroadcastHashJoin; a join outer on its build side outputs the " +
			"unmatched build rows after the streamed side, as Spark does. The build side is held in " +
			"task memory; when it does not fit and nothing above the join reads its order, the join partitions " +
			"both sides to disk by key and joins one partition at a time (grace hash join; a partition " +
			"still too large is partitioned again, up to 3 times).",
		Build: func(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
			return buildHashJoin(n, children, conf, shuffledJoin)
		}})
	Register(Rule{SparkClass: "SortMergeJoinExec", Name: "BolideSortMergeJoin",
		ConfKey: "sortMergeJoin",
		Doc: "Spark's sort-merge join (inner, cross, left/right/full outer, left semi, left anti, " +
			"existence) run as a hash join that streams the side whose order the sort-merge join " +
			"reports (the left one; the right one for a right outer join) and builds the other, so " +
			"the output keeps the ordering Spark's plan relies on. The sort of the build side is " +
			"then redundant and is not run (it disappears from the plan), and so is the streamed " +
			"side's when nothing above the join reads its order (an aggregate, an exchange). The build side is held in " +
			"task memory; when it does not fit and nothing above the join reads its order, the join partitions " +
			"both sides to disk by key and joins one partition at a time (grace hash join; a partition " +
			"still too large is partitioned again, up to 3 times).",
		Build: func(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
			return buildHashJoin(n, children, conf, sortMergeJoin)
		},
		Redundant: sortMergeBuildSort})
	Register(Rule{SparkClass: "BroadcastNestedLoopJoinExec", Name: "BolideBroadcastNestedLoopJoin",
		ConfKey: "broadcastNestedLoopJoin",
		Doc: "joins without equi-join keys over a broadcast side: inner and cross joins building " +
			"either side, left outer, left semi, left anti and existence joins building the right " +
			"side, right outer building the left, with any native condition (every pair is a " +
			"candidate, in chunks of the batch size). Not yet: the shapes outer on the broadcast " +
			"side (a full outer join, left outer building left...), which need every task's matches.",
		Build: func(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
			return buildHashJoin(n, children, conf, nestedLoopJoin)
		}})
}

// joinStrategy is the Spark join node being translated.
type joinStrategy uint8

const (
	broadcastJoin joinStrategy = iota
	shuffledJoin
	sortMergeJoin
	nestedLoopJoin
)

func (s joinStrategy) String() string {
	switch s {
	case broadcastJoin:
		return "broadcast hash join"
	case shuffledJoin:
		return "shuffled hash join"
	case nestedLoopJoin:
		return "broadcast nested loop join"
	}
	return "sort-merge join"
}

// BroadcastHashJoinExec(leftKeys, rightKeys, joinType, buildSide, condition, left, right,
// isNullAwareAntiJoin), ShuffledHashJoinExec(leftKeys, rightKeys, joinType, buildSide, condition,
// left, right, isSkewJoin), SortMergeJoinExec(leftKeys, rightKeys, joinType, condition, left,
// right, isSkewJoin) and BroadcastNestedLoopJoinExec(left, right, buildSide, joinType,
// condition) as the encoder sends them: joinType and buildSide are Catalyst case objects
// (their names: "Inner", "BuildRight") except ExistenceJoin(exists), a case class
// ({"class", "fields": {"exists": attribute}}); every expression is bound to
// left.output ++ right.output. isSkewJoin needs nothing here: AQE's skew split is in how the
// children's partitions are read.
func buildHashJoin(n *plan.Node, children []exec.Operator, conf *plan.Conf, strategy joinStrategy) (exec.Operator, error) {
	if len(children) != 2 || len(n.Children) != 2 {
		return nil, fmt.Errorf("%s with %d children", n.NodeName, len(children))
	}
	nullAware := false
	if n.Has("isNullAwareAntiJoin") {
		var err error
		if nullAware, err = n.Bool("isNullAwareAntiJoin"); err != nil {
			return nil, err
		}
	}
	typ, err := joinTypeOf(n)
	if err != nil {
		return nil, err
	}
	var build join.BuildSide
	if strategy == sortMergeJoin {
		build = sortMergeBuildSide(typ)
	} else if build, err = buildSideOf(n); err != nil {
		return nil, err
	}
	if (strategy == broadcastJoin || strategy == nestedLoopJoin) && !broadcastBuildAllowed(typ, build) {
		// A broadcast build side is read whole by every task: rows it must output unmatched
		// would be output once per task.
		return nil, fmt.Errorf("a %s %s building %s is not supported natively: it needs the matches of every task",
			strategy, typ, build)
	}
	left, right := n.Children[0], n.Children[1]
	// "_unordered": the block's encoder marks a node the planner found unordered (ordering.go).
	spec := join.Spec{Type: typ, Build: build, NullAware: nullAware, MayReorder: n.Has("_unordered")}
	if strategy != nestedLoopJoin {
		if spec.LeftKeys, err = joinKeys(n, "leftKeys", "left", left.Output, conf); err != nil {
			return nil, err
		}
		if spec.RightKeys, err = joinKeys(n, "rightKeys", "right", right.Output, conf); err != nil {
			return nil, err
		}
		if len(spec.LeftKeys) != len(spec.RightKeys) || len(spec.LeftKeys) == 0 {
			return nil, fmt.Errorf("%s with %d left and %d right keys", strategy, len(spec.LeftKeys), len(spec.RightKeys))
		}
	}
	if nullAware && (typ != join.LeftAnti || len(spec.LeftKeys) != 1) {
		return nil, fmt.Errorf("a null-aware %s join with %d keys", typ, len(spec.LeftKeys))
	}
	if nullAware {
		// Spark's relation for a build side with a null key keeps no rows; the block is given one
		// row of nulls instead (BolideBroadcastRows), which says "null key" only if the key is a
		// plain column.
		rk, err := n.Exprs("rightKeys")
		if err != nil {
			return nil, err
		}
		if len(rk) != 1 || rk[0] == nil || plan.ShortClass(rk[0].Class) != "AttributeReference" {
			return nil, fmt.Errorf("a null-aware anti join whose build key is not a column is not supported natively")
		}
	}
	for i, lk := range spec.LeftKeys {
		rk := spec.RightKeys[i]
		// HashJoin requires equal key types (DataType.equalsStructurally), and so does the
		// sort-merge join's key ordering; a plan that breaks it is not one we can reason about.
		if !lk.Type().Equal(rk.Type()) {
			return nil, fmt.Errorf("join key %d is %s on the left and %s on the right", i, lk.Type(), rk.Type())
		}
		if !join.KeyTypeSupported(lk.Type()) {
			return nil, fmt.Errorf("join keys of type %s are not supported natively", lk.Type())
		}
	}
	if n.Has("condition") {
		c, err := n.Expr("condition")
		if err != nil {
			return nil, err
		}
		if c != nil && nullAware {
			return nil, fmt.Errorf("a null-aware anti join with a condition")
		}
		if c != nil {
			if spec.Condition, spec.CondColumns, err = joinCondition(c, len(left.Output)+len(right.Output), conf); err != nil {
				return nil, err
			}
			// Semi, anti and existence joins evaluate the condition on every candidate pair at once;
			// Spark stops at a probe row's first match, so an error Spark never reaches could be
			// raised here.
			if (typ == join.LeftSemi || typ == join.LeftAnti || typ == join.Existence) && expr.MayFail(spec.Condition) {
				return nil, fmt.Errorf("a %s join whose condition can raise errors (%s) is not supported natively: "+
					"Spark evaluates it only up to a row's first match", typ, spec.Condition)
			}
		}
	}
	if spec.Schema, err = n.OutputFields(); err != nil {
		return nil, err
	}
	if typ == join.Existence {
		if err := checkExists(n); err != nil {
			return nil, err
		}
	}
	if strategy == broadcastJoin {
		// A build side read from a block input may be a native broadcast: the executor's tasks
		// then share its hash table (join.SharedBuild; the task request says which inputs are).
		bn, keys := right, "rightKeys"
		if build == join.BuildLeft {
			bn, keys = left, "leftKeys"
		}
		if bn.Input != nil {
			raw, err := n.Raw(keys)
			if err != nil {
				return nil, err
			}
			spec.Shared = &join.SharedBuild{Input: *bn.Input, Key: string(raw)}
		}
	}
	if typ == join.Inner || (typ == join.LeftSemi && build == join.BuildRight) {
		field, out := "leftKeys", left.Output
		if build == join.BuildLeft {
			field, out = "rightKeys", right.Output
		}
		spec.ProbeKeyRefs = plainKeyColumns(n, field, out)
	}
	return join.NewHashJoin(children[0], children[1], spec)
}

// plainKeyColumns returns the child columns that are the keys field, when every key is a plain
// column of output; nil otherwise.
func plainKeyColumns(n *plan.Node, field string, output []plan.Attr) []int {
	es, err := n.Exprs(field)
	if err != nil {
		return nil
	}
	ords := make(map[int64]int, len(output))
	for i, a := range output {
		if _, dup := ords[a.ExprID]; !dup {
			ords[a.ExprID] = i
		}
	}
	refs := make([]int, 0, len(es))
	for _, e := range es {
		if e == nil {
			return nil
		}
		rb, err := plan.Rebind(e, ords)
		if err != nil {
			return nil
		}
		if c := plan.ShortClass(rb.Class); c != "AttributeReference" && c != "BoundReference" {
			return nil
		}
		r, err := plan.References(rb)
		if err != nil || len(r) != 1 {
			return nil
		}
		refs = append(refs, r[0])
	}
	return refs
}

// broadcastBuildAllowed is JoinSelectionHelper.canBuildBroadcastLeft / canBuildBroadcastRight.
func broadcastBuildAllowed(typ join.JoinType, build join.BuildSide) bool {
	if build == join.BuildLeft {
		return typ == join.Inner || typ == join.RightOuter
	}
	return typ != join.RightOuter && typ != join.FullOuter
}

// sortMergeBuildSide picks the side a sort-merge join run as a hash join builds: the other one
// is streamed, and its order is the join's output order (SortMergeJoinExec.outputOrdering: the
// left keys', the right keys' for a right outer join, none for a full outer join).
func sortMergeBuildSide(typ join.JoinType) join.BuildSide {
	if typ == join.RightOuter {
		return join.BuildLeft
	}
	return join.BuildRight
}

// sortMergeBuildSort names the child of a sort-merge join whose sort only served the merge: the
// build side's, when it is a SortExec (EnsureRequirements put it there for the join). Nothing
// else reads the build side's order: the join's output follows the streamed side.
func sortMergeBuildSort(n *plan.Node) []int {
	typ, err := joinTypeOf(n)
	if err != nil || len(n.Children) != 2 {
		return nil
	}
	i := 1
	if sortMergeBuildSide(typ) == join.BuildLeft {
		i = 0
	}
	if plan.ShortClass(n.Children[i].Class) != "SortExec" {
		return nil
	}
	return []int{i}
}

// joinTypeOf decodes the joinType field.
func joinTypeOf(n *plan.Node) (join.JoinType, error) {
	raw, err := n.Raw("joinType")
	if err != nil {
		return 0, err
	}
	var name string
	if json.Unmarshal(raw, &name) != nil {
		var p plan.Product
		if err := json.Unmarshal(raw, &p); err != nil || p.Class == "" {
			return 0, fmt.Errorf("join type %s is not understood", string(raw))
		}
		name = plan.ShortClass(p.Class)
	}
	switch strings.TrimSuffix(name, "$") {
	case "Inner", "Cross":
		return join.Inner, nil
	case "LeftOuter":
		return join.LeftOuter, nil
	case "RightOuter":
		return join.RightOuter, nil
	case "LeftSemi":
		return join.LeftSemi, nil
	case "LeftAnti":
		return join.LeftAnti, nil
	case "ExistenceJoin":
		return join.Existence, nil
	case "FullOuter":
		return join.FullOuter, nil
	case "LeftSingle":
		return 0, fmt.Errorf("LeftSingle joins (a scalar subquery as a join, which must fail on a " +
			"second match) are not supported natively yet")
	}
	return 0, fmt.Errorf("%s joins are not supported by a native hash join", name)
}

func buildSideOf(n *plan.Node) (join.BuildSide, error) {
	s, err := n.String("buildSide")
	if err != nil {
		return 0, err
	}
	switch strings.TrimSuffix(s, "$") {
	case "BuildRight":
		return join.BuildRight, nil
	case "BuildLeft":
		return join.BuildLeft, nil
	}
	return 0, fmt.Errorf("unknown build side %q", s)
}

// joinKeys translates one side's keys, rebound from left.output ++ right.output to that side's
// own columns (the side's batches are what they are evaluated over).
func joinKeys(n *plan.Node, field, side string, output []plan.Attr, conf *plan.Conf) ([]expr.Expr, error) {
	es, err := n.Exprs(field)
	if err != nil {
		return nil, err
	}
	ords := make(map[int64]int, len(output))
	for i, a := range output {
		if _, dup := ords[a.ExprID]; !dup {
			ords[a.ExprID] = i
		}
	}
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		if e == nil {
			return nil, fmt.Errorf("%s join key %d is missing", side, i)
		}
		rb, err := plan.Rebind(e, ords)
		if err != nil {
			return nil, fmt.Errorf("%s join key %d reads a column its side does not output: %w", side, i, err)
		}
		if out[i], err = expr.Translate(rb, conf); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// joinCondition rebinds the condition to a batch of only the columns it reads (so that candidate
// pairs gather nothing else) and translates it; cols[i] is the position in left.output ++
// right.output of that batch's column i.
func joinCondition(c *plan.Expr, width int, conf *plan.Conf) (expr.Expr, []int, error) {
	ords := map[int64]int{}
	var cols []int
	err := walkAttributes(c, func(a *plan.Expr) error {
		if a.ExprID == nil || a.Ordinal == nil || *a.Ordinal < 0 || *a.Ordinal >= width {
			return fmt.Errorf("join condition reads %s, which the join's children do not output", a.Name)
		}
		if at, seen := ords[*a.ExprID]; seen {
			if cols[at] != *a.Ordinal {
				return fmt.Errorf("join condition binds %s#%d to two columns", a.Name, *a.ExprID)
			}
			return nil
		}
		ords[*a.ExprID] = len(cols)
		cols = append(cols, *a.Ordinal)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	rb, err := plan.Rebind(c, ords)
	if err != nil {
		return nil, nil, err
	}
	// A condition without a kernel is evaluated by the JVM over the batch of candidate pairs
	// (bound by exprId there), as Spark's join evaluates it on every pair whose keys match.
	e, err := expr.TranslateOrDispatch(rb, conf)
	if err != nil {
		return nil, nil, err
	}
	return e, cols, nil
}

// walkAttributes calls f on every attribute reference of e, descending through expression fields
// and sequences as plan.Rebind does. A BoundReference (no exprId to rebind by) is refused.
func walkAttributes(e *plan.Expr, f func(*plan.Expr) error) error {
	switch plan.ShortClass(e.Class) {
	case "AttributeReference":
		return f(e)
	case "BoundReference":
		return fmt.Errorf("join condition with a BoundReference is not supported natively")
	}
	for _, raw := range e.Fields {
		if err := walkValue(raw, f); err != nil {
			return err
		}
	}
	return nil
}

func walkValue(raw json.RawMessage, f func(*plan.Expr) error) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	switch t[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(t, &elems); err != nil {
			return err
		}
		for _, el := range elems {
			if err := walkValue(el, f); err != nil {
				return err
			}
		}
	case '{':
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(t, &probe); err != nil {
			return err
		}
		_, hasClass := probe["class"]
		_, hasType := probe["dataType"]
		if !hasClass {
			return nil
		}
		if !hasType {
			// CaseWhen's branches are scala.Tuple2 products of expressions.
			for _, v := range plan.ProductFields(probe) {
				if err := walkValue(v, f); err != nil {
					return err
				}
			}
			return nil
		}
		var sub plan.Expr
		if err := json.Unmarshal(t, &sub); err != nil {
			return err
		}
		return walkAttributes(&sub, f)
	}
	return nil
}

// checkExists verifies that an existence join outputs its exists attribute last.
func checkExists(n *plan.Node) error {
	raw, err := n.Raw("joinType")
	if err != nil {
		return err
	}
	var p plan.Product
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	ex, err := decodeField[*plan.Expr](p.Fields, "exists")
	if err != nil || ex == nil || ex.ExprID == nil {
		return fmt.Errorf("ExistenceJoin without its exists attribute")
	}
	if len(n.Output) == 0 || n.Output[len(n.Output)-1].ExprID != *ex.ExprID {
		return fmt.Errorf("ExistenceJoin's output does not end with its exists attribute %s#%d", ex.Name, *ex.ExprID)
	}
	return nil
}

func decodeField[T any](fs map[string]json.RawMessage, name string) (T, error) {
	var out T
	raw, ok := fs[name]
	if !ok {
		return out, fmt.Errorf("no field %q", name)
	}
	err := json.Unmarshal(raw, &out)
	return out, err
}
