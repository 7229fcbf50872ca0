package translate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/ops/aggregate"
	"github.com/bolide-dev/bolide/native/plan"
)

// BuiltinFunction is one of Spark's built-in functions as the JVM lists them from its
// FunctionRegistry (docs/functions.md is generated from the list by `make docs`).
type BuiltinFunction struct {
	Name  string `json:"name"`
	Class string `json:"class"` // the expression class the name builds
	Group string `json:"group"` // ExpressionInfo's group, e.g. "math_funcs" ("" when Spark gives none)
	// Kind is what the class is: "aggregate", "window", "generator", "replaceable" (a
	// RuntimeReplaceable or an ExpressionBuilder: Spark turns it into other expressions before
	// planning) or "scalar".
	Kind string `json:"kind"`
}

// Function statuses in docs/functions.md.
const (
	fnNative    = "native"
	fnRewritten = "rewritten by Spark"
	fnDispatch  = "dispatch"
	fnSpark     = "Spark"
)

// functionStatus says how Bolide runs a built-in: natively (the engine registers its class),
// rewritten (Spark replaces it before planning, so it is native exactly when its replacement is),
// dispatched (a scalar function the engine has no kernel for: inside a native Project, Filter,
// aggregate or sort the JVM evaluates it with Spark's code, expr.NewDispatched), or in Spark (the operator that holds
// it falls back, with the reason in EXPLAIN; sparkReason says why for the doc).
func functionStatus(f BuiltinFunction) string {
	short := plan.ShortClass(f.Class)
	switch {
	case f.Kind == "aggregate" && aggregate.Registered(short):
		return fnNative
	// The ranking functions are AggregateWindowFunctions (kind "aggregate"), lag and lead
	// "window": either way the window operator decides.
	case (f.Kind == "window" || f.Kind == "aggregate") && WindowFunctionSupported(short):
		return fnNative
	case f.Kind == "generator" && GeneratorSupported(short):
		return fnNative
	case f.Kind != "aggregate" && expr.Registered(short):
		return fnNative
	case f.Kind == "replaceable" || resolvedBeforePlanning[short]:
		return fnRewritten
	case f.Kind == "scalar" && notDispatched[short] == "":
		return fnDispatch
	}
	return fnSpark
}

// sparkReason is why a function of status fnSpark is neither native nor dispatched.
func sparkReason(f BuiltinFunction) string {
	if why := notDispatched[plan.ShortClass(f.Class)]; why != "" {
		return why
	}
	switch f.Kind {
	case "aggregate":
		return "an aggregate function: its aggregate operator stays in Spark"
	case "window":
		return "a window function: its window operator stays in Spark"
	case "generator":
		return "a generator: its Generate stays in Spark"
	}
	return "not supported"
}

// notDispatched are the scalar functions without a kernel that dispatch cannot take either (what
// expr.NewDispatched refuses for every use of the class), with the reason.
var notDispatched = map[string]string{
	"ToVariantObject":         "returns a variant, which the engine does not carry",
	"MakeDTInterval":          "returns an interval, which the engine does not carry",
	"MakeYMInterval":          "returns an interval, which the engine does not carry",
	"MakeInterval":            "returns an interval, which the engine does not carry",
	"InputFileName":           "not deterministic (reads the task's current file)",
	"InputFileBlockStart":     "not deterministic (reads the task's current file)",
	"InputFileBlockLength":    "not deterministic (reads the task's current file)",
	"CallMethodViaReflection": "not deterministic (calls arbitrary Java code)",
}

// resolvedBeforePlanning are the classes Spark's analyzer or optimizer always replaces before a
// physical plan exists, so no operator ever holds them: the current time and session functions
// become literals (the optimizer's ComputeCurrentTime and ReplaceCurrentLike, once per query, as
// Spark documents), grouping and grouping_id columns of the Expand that GROUPING SETS, CUBE and
// ROLLUP build (ResolveGroupingAnalytics), and the time windows an Expand or a Filter over
// computed window columns (TimeWindowing, SessionWindowing, ResolveWindowTime).
var resolvedBeforePlanning = map[string]bool{
	"CurrentDate": true, "CurrentTimestamp": true, "Now": true, "LocalTimestamp": true,
	"CurrentTime": true, "CurrentTimeZone": true, "CurrentDatabase": true, "CurrentCatalog": true,
	"CurrentUser": true, "Grouping": true, "GroupingID": true, "TimeWindow": true,
	"SessionWindow": true, "WindowTime": true,
}

// FunctionsDoc renders the table of every Spark built-in function with how Bolide runs it.
func FunctionsDoc(fns []BuiltinFunction, sparkVersion string) string {
	fns = append([]BuiltinFunction(nil), fns...)
	sort.Slice(fns, func(i, j int) bool { return fns[i].Name < fns[j].Name })
	count := map[string]int{}
	for _, f := range fns {
		count[functionStatus(f)]++
	}
	var b strings.Builder
	b.WriteString("# Spark's built-in functions in Bolide\n\n")
	b.WriteString("Generated from Spark's FunctionRegistry and the engine's registries (`make docs`); do not edit by hand.\n\n")
	fmt.Fprintf(&b, "Spark %s has %d built-in functions (names; aliases count separately, as Spark lists them): ",
		sparkVersion, len(fns))
	fmt.Fprintf(&b, "**%d native**, %d rewritten by Spark into other expressions before planning "+
		"(native exactly when the rewrite is: see the plan), %d dispatched to Spark's code inside native "+
		"operators, %d run by Spark.\n\n", count[fnNative], count[fnRewritten], count[fnDispatch], count[fnSpark])
	b.WriteString("- *native*: the engine translates the expression class; it may still refuse an argument type ")
	b.WriteString("or mode, and then says why in `EXPLAIN EXTENDED` (the notes in supported.md list what each covers).\n")
	b.WriteString("- *rewritten by Spark*: a RuntimeReplaceable expression or an ExpressionBuilder; Spark ")
	b.WriteString("replaces it before planning (e.g. `nvl` becomes `coalesce`, `ceil` a Ceil), and Bolide sees the replacement. ")
	b.WriteString("So do the functions Spark's analyzer or optimizer always resolves: the current date, time, user and ")
	b.WriteString("database become literals, `grouping` and `grouping_id` columns of an Expand, `window`, `session_window` ")
	b.WriteString("and `window_time` computed columns.\n")
	b.WriteString("- *dispatch*: no native kernel. In a native Project's list, a Filter's condition, an aggregate's ")
	b.WriteString("arguments, a sort's keys or a join's condition, the JVM evaluates it ")
	b.WriteString("with Spark's own code, one call per batch, and the operator stays native (EXPLAIN marks it ")
	b.WriteString("`dispatch(Class)`; `spark.bolide.dispatch.enabled=false` sends its operator back to Spark instead). ")
	b.WriteString("Elsewhere (a window's input, a shuffle's partitioning, a semi or anti join's condition), or when the call is not deterministic ")
	b.WriteString("or reads or returns an interval or a variant, its operator stays in Spark with the reason.\n")
	b.WriteString("- *Spark*: its operator stays in Spark, for the reason given; the rest of the plan stays native around it.\n\n")
	b.WriteString("| function | Spark class | group | Bolide |\n|---|---|---|---|\n")
	for _, f := range fns {
		name := strings.ReplaceAll(f.Name, "|", `\|`)
		status := functionStatus(f)
		if status == fnSpark {
			status += ": " + sparkReason(f)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, plan.ShortClass(f.Class), f.Group, status)
	}
	return b.String()
}
