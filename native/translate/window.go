package translate

import (
	"fmt"
	"strings"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops/window"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "WindowExec", Name: "BolideWindow", ConfKey: "window",
		Doc: "window functions over Spark's sorted child, partition by partition: row_number, rank, " +
			"dense_rank, ntile, percent_rank, cume_dist, lag and lead (literal offset and default, not " +
			"IGNORE NULLS); count, sum, avg (integral and floating inputs), min, max (integral " +
			"inputs), and first_value, last_value, nth_value (literal n; any native input type, IGNORE " +
			"NULLS included) over ROWS or RANGE UNBOUNDED PRECEDING AND CURRENT ROW and over the whole " +
			"partition, adding rows in order as Spark does; keys of any native type except collated " +
			"strings (NaN equal to NaN, -0.0 to 0.0, as in Spark). The rows of the open partition are " +
			"held in task memory, or written to disk when Spark refuses memory and read back piece by " +
			"piece, peer groups of any length included (docs/tuning.md). Bounded frames and decimal sums " +
			"stay in Spark.",
		Build: buildWindow})
}

// windowFunctionClasses are the window function classes the operator computes (functionStatus
// counts them native).
var windowFunctionClasses = map[string]window.Kind{
	"RowNumber": window.RowNumber, "Rank": window.Rank, "DenseRank": window.DenseRank,
	"PercentRank": window.PercentRank, "CumeDist": window.CumeDist, "NTile": window.NTile,
	"Lag": window.Offset, "Lead": window.Offset, "NthValue": window.Aggregate,
}

// WindowFunctionSupported reports whether a window function class (short name) runs natively.
func WindowFunctionSupported(shortClass string) bool {
	_, ok := windowFunctionClasses[shortClass]
	return ok
}

func buildWindow(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("WindowExec with %d children", len(children))
	}
	wexprs, err := n.Exprs("windowExpression")
	if err != nil {
		return nil, err
	}
	partSpec, err := n.Exprs("partitionSpec")
	if err != nil {
		return nil, err
	}
	orders, err := n.Exprs("orderSpec")
	if err != nil {
		return nil, err
	}
	partKeys, err := windowKeys(partSpec, conf)
	if err != nil {
		return nil, err
	}
	orderExprs := make([]*plan.Expr, len(orders))
	for i, o := range orders {
		if orderExprs[i], err = o.Child("child"); err != nil {
			return nil, err
		}
	}
	orderKeys, err := windowKeys(orderExprs, conf)
	if err != nil {
		return nil, err
	}
	out, err := n.OutputFields()
	if err != nil {
		return nil, err
	}
	nchild := len(children[0].Schema())
	if len(out) != nchild+len(wexprs) {
		return nil, fmt.Errorf("WindowExec outputs %d columns for %d child columns and %d window expressions",
			len(out), nchild, len(wexprs))
	}
	funcs := make([]*window.Function, len(wexprs))
	for i, we := range wexprs {
		if funcs[i], err = windowFunction(we, conf); err != nil {
			return nil, err
		}
	}
	return window.New(children[0], partKeys, orderKeys, funcs, out[nchild:])
}

// windowKeys translates partition or order keys. Spark wraps floating partition keys in
// NormalizeNaNAndZero; the operator's key equality already treats NaNs and zeros that way.
func windowKeys(es []*plan.Expr, conf *plan.Conf) ([]expr.Expr, error) {
	keys := make([]expr.Expr, len(es))
	for i, e := range es {
		for {
			cls := plan.ShortClass(e.Class)
			if cls != "KnownFloatingPointNormalized" && cls != "NormalizeNaNAndZero" {
				break
			}
			c, err := e.Child("child")
			if err != nil {
				return nil, err
			}
			e = c
		}
		k, err := expr.Translate(e, conf)
		if err != nil {
			return nil, err
		}
		if err := window.KeySupported(k.Type()); err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

// windowFunction decodes one windowExpression: Alias(WindowExpression(function, spec)).
func windowFunction(e *plan.Expr, conf *plan.Conf) (*window.Function, error) {
	for plan.ShortClass(e.Class) == "Alias" {
		c, err := e.Child("child")
		if err != nil {
			return nil, err
		}
		e = c
	}
	if plan.ShortClass(e.Class) != "WindowExpression" {
		return nil, fmt.Errorf("window expression %s is not supported natively", plan.ShortClass(e.Class))
	}
	fn, err := e.Child("windowFunction")
	if err != nil {
		return nil, err
	}
	if plan.ShortClass(fn.Class) == "AggregateExpression" {
		return frameAggregate(e, fn, conf)
	}
	cls := plan.ShortClass(fn.Class)
	kind, ok := windowFunctionClasses[cls]
	if !ok {
		return nil, fmt.Errorf("window function %s is not supported natively", cls)
	}
	if cls == "NthValue" {
		return nthValue(e, fn, conf)
	}
	f := &window.Function{Kind: kind}
	switch cls {
	case "NTile":
		b, err := fn.Child("buckets")
		if err != nil {
			return nil, err
		}
		v, err := literalInt(b)
		if err != nil {
			return nil, fmt.Errorf("ntile: %w", err)
		}
		f.Buckets = v
	case "Lag", "Lead":
		if err := offsetFunction(fn, cls, f, conf); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func offsetFunction(fn *plan.Expr, cls string, f *window.Function, conf *plan.Conf) error {
	if ign, err := fn.Bool("ignoreNulls"); err != nil || ign {
		return fmt.Errorf("%s with IGNORE NULLS is not supported natively", cls)
	}
	offField := "offset"
	if cls == "Lag" {
		offField = "inputOffset"
	}
	o, err := fn.Child(offField)
	if err != nil {
		return err
	}
	rows, err := literalInt(o)
	if err != nil {
		return fmt.Errorf("%s offset: %w", cls, err)
	}
	if rows == 0 {
		return fmt.Errorf("%s with offset 0 is not supported natively", cls)
	}
	if cls == "Lag" {
		rows = -rows
	}
	f.Rows = rows
	in, err := fn.Child("input")
	if err != nil {
		return err
	}
	if f.Input, err = expr.Translate(in, conf); err != nil {
		return err
	}
	def, err := fn.Child("default")
	if err != nil {
		return err
	}
	if def != nil {
		if plan.ShortClass(def.Class) != "Literal" {
			return fmt.Errorf("%s with a non-constant default is not supported natively", cls)
		}
		raw, err := def.Raw("value")
		if err != nil {
			return err
		}
		dt, err := def.Type()
		if err != nil {
			return err
		}
		if string(raw) != "null" {
			if !dt.Equal(f.Input.Type()) {
				return fmt.Errorf("%s default of type %s for an input of type %s", cls, dt, f.Input.Type())
			}
			if f.Default, err = plan.DecodeValue(raw, dt); err != nil {
				return err
			}
		}
	}
	return nil
}

// literalInt reads an integer literal.
func literalInt(e *plan.Expr) (int64, error) {
	if e == nil || plan.ShortClass(e.Class) != "Literal" {
		return 0, fmt.Errorf("not a constant")
	}
	t, err := e.Type()
	if err != nil {
		return 0, err
	}
	if t.Kind != sparktype.Int && t.Kind != sparktype.Long {
		return 0, fmt.Errorf("constant of type %s", t)
	}
	raw, err := e.Raw("value")
	if err != nil {
		return 0, err
	}
	v, err := plan.DecodeValue(raw, t)
	if err != nil || v == nil {
		return 0, fmt.Errorf("null or invalid constant")
	}
	return v.(int64), nil
}

// nthValue decodes NthValue(input, offset, ignoreNulls) over its frame (the one Spark's
// analyzer gave it, or OptimizeWindowFunctions' rewrite of first_value over a ROWS frame).
func nthValue(we, fn *plan.Expr, conf *plan.Conf) (*window.Function, error) {
	o, err := fn.Child("offset")
	if err != nil {
		return nil, err
	}
	n, err := literalInt(o)
	if err != nil {
		return nil, fmt.Errorf("nth_value offset: %w", err)
	}
	if n < 1 {
		return nil, fmt.Errorf("nth_value with offset %d is not supported natively", n)
	}
	ign, err := fn.Bool("ignoreNulls")
	if err != nil {
		return nil, err
	}
	in, err := fn.Child("input")
	if err != nil {
		return nil, err
	}
	f := &window.Function{Kind: window.Aggregate, Agg: window.AggNth, Nth: n, IgnoreNulls: ign}
	if f.Input, err = expr.Translate(in, conf); err != nil {
		return nil, err
	}
	if f.Frame, err = windowFrame(we); err != nil {
		return nil, err
	}
	return f, nil
}

// windowFrame decodes the frame of WindowExpression we.
func windowFrame(we *plan.Expr) (window.Frame, error) {
	spec, err := we.Child("windowSpec")
	if err != nil {
		return 0, err
	}
	frame, err := spec.Child("frameSpecification")
	if err != nil {
		return 0, err
	}
	return decodeFrame(frame)
}

// windowAggregates are the aggregate functions computed over frames.
var windowAggregates = map[string]window.AggOp{
	"Count": window.AggCount, "Sum": window.AggSum, "Min": window.AggMin, "Max": window.AggMax,
	"Average": window.AggAvg, "First": window.AggFirst, "Last": window.AggLast,
}

// frameAggregate decodes an aggregate over a frame: WindowExpression(AggregateExpression, spec).
func frameAggregate(we, ae *plan.Expr, conf *plan.Conf) (*window.Function, error) {
	if d, err := ae.Bool("isDistinct"); err != nil || d {
		return nil, fmt.Errorf("DISTINCT aggregates over a window are not supported natively")
	}
	if ae.Has("filter") {
		if raw, err := ae.Raw("filter"); err != nil || string(raw) != "null" {
			return nil, fmt.Errorf("FILTER on an aggregate over a window is not supported natively")
		}
	}
	agg, err := ae.Child("aggregateFunction")
	if err != nil {
		return nil, err
	}
	cls := plan.ShortClass(agg.Class)
	op, ok := windowAggregates[cls]
	if !ok {
		return nil, fmt.Errorf("aggregate %s over a window is not supported natively", cls)
	}
	var in *plan.Expr
	if op == window.AggCount {
		kids, err := agg.Children("children")
		if err != nil {
			return nil, err
		}
		if len(kids) != 1 {
			return nil, fmt.Errorf("count of %d expressions over a window is not supported natively", len(kids))
		}
		in = kids[0]
	} else if in, err = agg.Child("child"); err != nil {
		return nil, err
	}
	f := &window.Function{Kind: window.Aggregate, Agg: op}
	if op == window.AggFirst || op == window.AggLast {
		if f.IgnoreNulls, err = agg.Bool("ignoreNulls"); err != nil {
			return nil, err
		}
	}
	if op == window.AggSum {
		mode, err := aggregateEvalMode(agg)
		if err != nil {
			return nil, err
		}
		switch mode {
		case "ANSI":
			f.Ansi = true
		case "LEGACY":
		default:
			return nil, fmt.Errorf("sum in %s mode over a window is not supported natively", mode)
		}
	}
	if f.Input, err = expr.Translate(in, conf); err != nil {
		return nil, err
	}
	if f.Frame, err = windowFrame(we); err != nil {
		return nil, err
	}
	return f, nil
}

// aggregateEvalMode reads Sum's eval mode (4.1: evalContext.evalMode).
func aggregateEvalMode(agg *plan.Expr) (string, error) {
	if agg.Has("evalContext") {
		p, err := agg.Product("evalContext")
		if err != nil || p == nil {
			return "", fmt.Errorf("sum without an eval context")
		}
		return p.String("evalMode")
	}
	if agg.Has("evalMode") {
		return agg.String("evalMode")
	}
	return "LEGACY", nil
}

// decodeFrame reads a SpecifiedWindowFrame; only frames starting at the partition's first row.
func decodeFrame(fr *plan.Expr) (window.Frame, error) {
	if fr == nil || plan.ShortClass(fr.Class) != "SpecifiedWindowFrame" {
		return 0, fmt.Errorf("window frame %v is not supported natively", fr)
	}
	ft, err := fr.String("frameType")
	if err != nil {
		return 0, err
	}
	ft = strings.TrimSuffix(plan.ShortClass(ft), "$")
	bound := func(name string) (string, error) {
		b, err := fr.Child(name)
		if err != nil || b == nil {
			return "", fmt.Errorf("window frame without a %s bound", name)
		}
		return strings.TrimSuffix(plan.ShortClass(b.Class), "$"), nil
	}
	lower, err := bound("lower")
	if err != nil {
		return 0, err
	}
	upper, err := bound("upper")
	if err != nil {
		return 0, err
	}
	switch {
	case lower == "UnboundedPreceding" && upper == "UnboundedFollowing":
		return window.FramePartition, nil
	case lower == "UnboundedPreceding" && upper == "CurrentRow" && ft == "RowFrame":
		return window.FrameRunningRows, nil
	case lower == "UnboundedPreceding" && upper == "CurrentRow" && ft == "RangeFrame":
		return window.FrameRunningRange, nil
	}
	return 0, fmt.Errorf("window frame %s BETWEEN %s AND %s is not supported natively (only frames from "+
		"UNBOUNDED PRECEDING to CURRENT ROW or UNBOUNDED FOLLOWING)", ft, lower, upper)
}
