package translate

import (
	"encoding/json"
	"fmt"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

func init() {
	Register(Rule{SparkClass: "GenerateExec", Name: "BolideGenerate", ConfKey: "generate",
		Doc: "explode, explode_outer, posexplode, posexplode_outer (arrays and maps), inline, " +
			"inline_outer, stack and json_tuple (literal field names): the generator's arguments must be supported; rows come out in " +
			"Spark's order, in batches of the usual size however large an array",
		Build: buildGenerate})
}

// generators are the Generator classes BolideGenerate runs (the doc status of stack, the one of
// them Spark's function registry names by its class, comes from here).
var generators = map[string]bool{"Explode": true, "PosExplode": true, "Inline": true, "Stack": true, "JsonTuple": true}

// GeneratorSupported reports whether BolideGenerate runs a Generator class (short name).
func GeneratorSupported(short string) bool { return generators[short] }

func buildGenerate(n *plan.Node, children []exec.Operator, conf *plan.Conf) (exec.Operator, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("GenerateExec with %d children", len(children))
	}
	gen, err := n.Expr("generator")
	if err != nil {
		return nil, err
	}
	if gen == nil {
		return nil, fmt.Errorf("GenerateExec without a generator")
	}
	short := plan.ShortClass(gen.Class)
	if !generators[short] {
		return nil, fmt.Errorf("generator %s is not supported natively", short)
	}
	outer, err := n.Bool("outer")
	if err != nil {
		return nil, err
	}
	reqAttrs, err := n.Exprs("requiredChildOutput")
	if err != nil {
		return nil, err
	}
	required := make([]int, len(reqAttrs))
	for i, a := range reqAttrs {
		if a == nil || a.Ordinal == nil || *a.Ordinal < 0 {
			return nil, fmt.Errorf("GenerateExec required column %d is not a column of its child", i)
		}
		required[i] = *a.Ordinal
	}
	schema, err := n.OutputFields()
	if err != nil {
		return nil, err
	}
	for _, f := range schema {
		if !f.Type.Readable() {
			return nil, fmt.Errorf("generate output column %s of type %s is not supported natively", f.Name, f.Type)
		}
	}
	spec := ops.GenerateSpec{Outer: outer}
	switch short {
	case "Explode", "PosExplode", "Inline":
		c, err := gen.Child("child")
		if err != nil {
			return nil, err
		}
		if spec.Collection, err = expr.Translate(c, conf); err != nil {
			return nil, err
		}
		spec.Position = short == "PosExplode"
		switch t := spec.Collection.Type(); {
		case short == "Inline":
			spec.Kind = ops.GenInline
		case t.Kind == sparktype.Map:
			spec.Kind = ops.GenExplodeMap
		default:
			spec.Kind = ops.GenExplodeArray
		}
	case "Stack":
		args, err := gen.Children("children")
		if err != nil {
			return nil, err
		}
		if len(args) < 2 {
			return nil, fmt.Errorf("stack with %d arguments", len(args))
		}
		rows, err := stackRows(args[0])
		if err != nil {
			return nil, err
		}
		spec.Kind, spec.StackRows = ops.GenStack, rows
		for _, a := range args[1:] {
			x, err := expr.Translate(a, conf)
			if err != nil {
				return nil, err
			}
			spec.StackArgs = append(spec.StackArgs, x)
		}
	case "JsonTuple":
		// One row per input row: stack(1, field 1, ..., field n) with a string expression per field.
		args, err := gen.Children("children")
		if err != nil {
			return nil, err
		}
		if spec.StackArgs, err = expr.JSONTupleFields(args, conf); err != nil {
			return nil, err
		}
		spec.Kind, spec.StackRows = ops.GenStack, 1
	}
	return ops.NewGenerate(children[0], required, spec, schema)
}

// stackRows reads stack's n, an integer literal once Spark has folded it (Spark requires it
// foldable and positive).
func stackRows(e *plan.Expr) (int, error) {
	if e == nil || plan.ShortClass(e.Class) != "Literal" {
		return 0, fmt.Errorf("stack's row count is not a literal")
	}
	raw, err := e.Raw("value")
	if err != nil {
		return 0, err
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil || n < 1 || n > 1<<20 {
		return 0, fmt.Errorf("stack's row count %s is not supported natively", raw)
	}
	return int(n), nil
}
