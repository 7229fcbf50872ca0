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
	fnSpark     = "Spark"
)

// functionStatus says how Bolide runs a built-in: natively (the engine registers its class),
// rewritten (Spark replaces it before planning, so it is native exactly when its replacement is),
// or in Spark (the operator that holds it falls back, with the reason in EXPLAIN).
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
	}
	return fnSpark
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
		"(native exactly when the rewrite is: see the plan), %d run by Spark.\n\n", count[fnNative],
		count[fnRewritten], count[fnSpark])
	b.WriteString("- *native*: the engine translates the expression class; it may still refuse an argument type ")
	b.WriteString("or mode, and then says why in `EXPLAIN EXTENDED` (the notes in supported.md list what each covers).\n")
	b.WriteString("- *rewritten by Spark*: a RuntimeReplaceable expression or an ExpressionBuilder; Spark ")
	b.WriteString("replaces it before planning (e.g. `nvl` becomes `coalesce`, `ceil` a Ceil), and Bolide sees the replacement. ")
	b.WriteString("So do the functions Spark's analyzer or optimizer always resolves: the current date, time, user and ")
	b.WriteString("database become literals, `grouping` and `grouping_id` columns of an Expand, `window`, `session_window` ")
	b.WriteString("and `window_time` computed columns.\n")
	b.WriteString("- *Spark*: not native yet. The operator that holds it stays in Spark, with the reason; ")
	b.WriteString("the rest of the plan stays native around it. With `spark.bolide.dispatch.enabled=true`, a deterministic ")
	b.WriteString("one over atomic types in a Project's list or a Filter's condition is evaluated by Spark's own code inside ")
	b.WriteString("the native operator instead (dispatch: EXPLAIN marks it `dispatch(Class)`).\n\n")
	b.WriteString("| function | Spark class | group | Bolide |\n|---|---|---|---|\n")
	for _, f := range fns {
		name := strings.ReplaceAll(f.Name, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, plan.ShortClass(f.Class), f.Group, functionStatus(f))
	}
	return b.String()
}
