package expr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// StaticInvoke (objects.scala) calls a static Java method; ApplyFunctionExpression calls a
// connector ScalarFunction's produceResult. Catalyst names the call, not what it computes, so
// natively both are dispatched on the called class (StaticInvoke's staticObject, the class of
// ApplyFunctionExpression's function) to the translators that expression families register with
// registerCall. Every other called class (Spark's own functions that are StaticInvoke under the
// hood, user functions) is refused with the class named in the reason.

func init() {
	Register("StaticInvoke", "a static Java method call: natively only the called classes of the rows marked (StaticInvoke) in this table", translateStaticInvoke)
	Register("ApplyFunctionExpression", "a connector ScalarFunction called through produceResult (Iceberg's optimizer rule puts its system functions into filters and join conditions this way): natively only the functions of the rows marked (ApplyFunctionExpression) in this table", translateApplyFunction)
}

// call is a StaticInvoke or an ApplyFunctionExpression as the family translators see it.
type call struct {
	class  string // binary name of the called class (org.example.Outer$Inner)
	method string // StaticInvoke's functionName; "produceResult" for ApplyFunctionExpression
	static bool   // StaticInvoke
	args   []*plan.Expr
	typ    sparktype.Type // the expression's result type
}

// shortName is the called class without its package, for reasons and docs.
func (c *call) shortName() string {
	if i := strings.LastIndexByte(c.class, '.'); i >= 0 {
		return c.class[i+1:]
	}
	return c.class
}

type callTranslator func(c *call, conf *plan.Conf) (Expr, error)

type callFamily struct {
	name      string // the support document's row, e.g. "Iceberg system.bucket"
	doc       string
	classes   []string
	translate callTranslator
}

var (
	callTargets  = map[string]*callFamily{}
	callFamilies []*callFamily
)

// registerCall routes calls of the given classes to t; name and doc make the family's row in the
// generated support document. Registration happens in init functions of the family files.
func registerCall(name, doc string, t callTranslator, classes ...string) {
	f := &callFamily{name: name, doc: doc, classes: classes, translate: t}
	for _, c := range classes {
		if _, dup := callTargets[c]; dup {
			panic("expr: duplicate call translator for " + c)
		}
		callTargets[c] = f
	}
	callFamilies = append(callFamilies, f)
}

// callDocs lists the call families for Supported.
func callDocs() [][2]string {
	out := make([][2]string, 0, len(callFamilies))
	for _, f := range callFamilies {
		short := make([]string, len(f.classes))
		for i, c := range f.classes {
			short[i] = (&call{class: c}).shortName()
		}
		sort.Strings(short)
		out = append(out, [2]string{f.name + " (StaticInvoke, ApplyFunctionExpression)",
			f.doc + "; classes: " + strings.Join(short, ", ")})
	}
	return out
}

func dispatchCall(c *call, conf *plan.Conf) (Expr, error) {
	f, ok := callTargets[c.class]
	if !ok {
		what := "StaticInvoke of " + c.shortName() + "." + c.method
		if !c.static {
			what = "ApplyFunctionExpression of " + c.shortName()
		}
		return nil, unsupported("%s is not supported natively", what)
	}
	return f.translate(c, conf)
}

func translateStaticInvoke(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	cls, err := pe.String("staticObject")
	if err != nil {
		return nil, unsupported("StaticInvoke: the called class is not known (%v)", err)
	}
	method, err := pe.String("functionName")
	if err != nil {
		return nil, err
	}
	args, err := pe.Children("arguments")
	if err != nil {
		return nil, err
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	return dispatchCall(&call{class: cls, method: method, static: true, args: args, typ: t}, conf)
}

func translateApplyFunction(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	fn, err := pe.Product("function")
	if err != nil || fn == nil || fn.Class == "" {
		return nil, unsupported("ApplyFunctionExpression: the function's class is not known (%v)", err)
	}
	args, err := pe.Children("children")
	if err != nil {
		return nil, err
	}
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	return dispatchCall(&call{class: fn.Class, method: "produceResult", args: args, typ: t}, conf)
}

// checkArity refuses a call with another number of arguments than its family takes.
func (c *call) checkArity(n int) error {
	if len(c.args) != n {
		return fmt.Errorf("%s called with %d arguments, expected %d", c.shortName(), len(c.args), n)
	}
	return nil
}
