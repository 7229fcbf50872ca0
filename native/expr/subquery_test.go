package expr

import (
	"strings"
	"testing"
)

// A scalar subquery is accepted at planning time (typed) and must never be evaluated: the JVM
// replaces it with a literal of its value before a task runs.
func TestScalarSubqueryIsAPlaceholder(t *testing.T) {
	e := mustTranslate(t, node("ScalarSubquery", "decimal(19,6)", "plan", `{"unsupported":"SubqueryExec"}`))
	if e.Type().Name != "decimal(19,6)" {
		t.Fatalf("type %s", e.Type())
	}
	_, err := e.Eval(newCtx(), batch(column(t, "long", int64(1))))
	if err == nil || !strings.Contains(err.Error(), "without its value") {
		t.Fatalf("want an error, got %v", err)
	}
}
