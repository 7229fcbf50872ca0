package translate

import (
	"fmt"

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
			"IGNORE NULLS); keys of any native type except collated strings (NaN equal to NaN, -0.0 to " +
			"0.0, as in Spark). The rows of the open partition are held in task memory; a refused " +
			"reservation fails the task with the memory message (no spilling yet). Aggregates, " +
			"nth_value and first/last over frames stay in Spark.",
		Build: buildWindow})
}

// windowFunctionClasses are the window function classes the operator computes (functionStatus
// counts them native).
var windowFunctionClasses = map[string]window.Kind{
	"RowNumber": window.RowNumber, "Rank": window.Rank, "DenseRank": window.DenseRank,
	"PercentRank": window.PercentRank, "CumeDist": window.CumeDist, "NTile": window.NTile,
	"Lag": window.Offset, "Lead": window.Offset,
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
	cls := plan.ShortClass(fn.Class)
	kind, ok := windowFunctionClasses[cls]
	if !ok {
		return nil, fmt.Errorf("window function %s is not supported natively", cls)
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
