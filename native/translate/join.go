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
			"an optional extra condition; the streamed side's order kept. The build side arrives as " +
			"an input and is held in task memory (no spilling). Not yet: null-aware anti joins " +
			"(`NOT IN` subqueries), LeftSingle joins.",
		Build: buildBroadcastHashJoin})
}

// BroadcastHashJoinExec(leftKeys, rightKeys, joinType, buildSide, condition, left, right,
// isNullAwareAntiJoin) as the encoder sends it: joinType and buildSide are Catalyst case objects
// (their names: "Inner", "BuildRight") except ExistenceJoin(exists), a case class
// ({"class", "fields": {"exists": attribute}}); every expression is bound to
// left.output ++ right.output.
func buildBroadcastHashJoin(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 2 || len(n.Children) != 2 {
		return nil, fmt.Errorf("BroadcastHashJoinExec with %d children", len(children))
	}
	if n.Has("isNullAwareAntiJoin") {
		nullAware, err := n.Bool("isNullAwareAntiJoin")
		if err != nil {
			return nil, err
		}
		if nullAware {
			return nil, fmt.Errorf("null-aware anti joins (NOT IN subqueries) are not supported natively yet")
		}
	}
	typ, err := joinTypeOf(n)
	if err != nil {
		return nil, err
	}
	build, err := buildSideOf(n)
	if err != nil {
		return nil, err
	}
	left, right := n.Children[0], n.Children[1]
	spec := join.Spec{Type: typ, Build: build}
	if spec.LeftKeys, err = joinKeys(n, "leftKeys", "left", left.Output, conf); err != nil {
		return nil, err
	}
	if spec.RightKeys, err = joinKeys(n, "rightKeys", "right", right.Output, conf); err != nil {
		return nil, err
	}
	if len(spec.LeftKeys) != len(spec.RightKeys) || len(spec.LeftKeys) == 0 {
		return nil, fmt.Errorf("broadcast hash join with %d left and %d right keys", len(spec.LeftKeys), len(spec.RightKeys))
	}
	for i, lk := range spec.LeftKeys {
		rk := spec.RightKeys[i]
		// HashJoin requires equal key types (DataType.equalsStructurally); a plan that breaks it is
		// not one we can reason about.
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
	return join.NewHashJoin(children[0], children[1], spec)
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
	case "LeftSingle":
		return 0, fmt.Errorf("LeftSingle joins (a scalar subquery as a join, which must fail on a " +
			"second match) are not supported natively yet")
	}
	return 0, fmt.Errorf("%s joins are not supported by a native broadcast hash join", name)
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
	e, err := expr.Translate(rb, conf)
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
		if !hasClass || !hasType {
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
