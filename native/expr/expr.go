// Package expr owns Spark-compatible expressions: the Expr interface, the registry of translators
// from Catalyst expression classes (keyed by class name, so supporting a new expression needs no
// JVM change), and the kernels, one expression family per file.
package expr

import (
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Expr is a bound, typed expression evaluated a batch at a time.
type Expr interface {
	// Type is the Spark result type (equal to the Catalyst expression's dataType).
	Type() sparktype.Type
	// Eval returns a new column of b.NumRows values; the caller releases it.
	Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error)
	String() string
}

// Translator builds an Expr from an encoded Catalyst expression, or returns an error whose text is
// the fallback reason shown to the user.
type Translator func(e *plan.Expr, conf *plan.Conf) (Expr, error)

type entry struct {
	translate Translator
	doc       string
}

var registry = map[string]entry{}

// nestedOK lists the classes that may take or return nested values (structs, arrays, maps).
// Every other translator was written for atomic types only and may assume them, so Translate
// keeps nested-typed arguments away from it.
var nestedOK = map[string]bool{
	"AttributeReference": true, "BoundReference": true, "Alias": true, "IsNull": true, "IsNotNull": true,
}

// RegisterNested is Register for a class whose translator handles nested arguments or results
// itself (refusing, with a reason, the shapes it cannot compute).
func RegisterNested(shortClass, doc string, t Translator) {
	Register(shortClass, doc, t)
	nestedOK[shortClass] = true
}

// Register adds a translator for a Catalyst class (short name, e.g. "Add"); doc is one line for the
// generated support document. Registration happens in init functions of the family files.
func Register(shortClass, doc string, t Translator) {
	if _, dup := registry[shortClass]; dup {
		panic("expr: duplicate translator for " + shortClass)
	}
	registry[shortClass] = entry{translate: t, doc: doc}
}

// Registered reports whether a Catalyst class (short name) has a translator (it may still refuse
// some argument types or modes, with a reason).
func Registered(shortClass string) bool {
	_, ok := registry[shortClass]
	return ok
}

// Unsupported is returned when no translator exists or a translator refuses.
type Unsupported struct{ Reason string }

func (u *Unsupported) Error() string { return u.Reason }

// Translate builds an Expr, refusing with a reason anything not supported natively.
func Translate(e *plan.Expr, conf *plan.Conf) (Expr, error) {
	if e == nil {
		return nil, &Unsupported{Reason: "missing expression"}
	}
	short := plan.ShortClass(e.Class)
	ent, ok := registry[short]
	if ok && !ExpressionEnabled(conf, short) {
		return nil, &Unsupported{Reason: fmt.Sprintf("expression %s is disabled by %s", short, ExpressionKey(short))}
	}
	if !ok {
		return nil, &Unsupported{Reason: fmt.Sprintf("expression %s is not supported natively", short)}
	}
	t, err := e.Type()
	if err != nil {
		return nil, err
	}
	if !t.Supported() && short != "Literal" && !(nestedOK[short] && t.Readable()) {
		return nil, &Unsupported{Reason: fmt.Sprintf("%s returns type %s, not supported natively", short, t)}
	}
	if t.Nested() {
		if name := duplicateField(t); name != "" {
			// Arrow Java keys a struct's children by name: the JVM would import fewer children
			// than the batch has, and fail.
			return nil, &Unsupported{Reason: fmt.Sprintf("%s returns a struct with two fields named %q", short, name)}
		}
	}
	out, err := ent.translate(e, conf)
	if err == nil && !nestedOK[short] {
		// Checked after the translator so that its own refusal, when it has one, is the reason.
		if arg := nestedArgument(e); arg != "" {
			return nil, &Unsupported{Reason: fmt.Sprintf("%s of a %s argument is not supported natively", short, arg)}
		}
	}
	return out, err
}

// Supported lists the registered expression classes with their docs, and the families of called
// classes natively supported in StaticInvoke and ApplyFunctionExpression (invoke.go), sorted, for
// the generated support document.
func Supported() [][2]string {
	out := make([][2]string, 0, len(registry))
	for k, v := range registry {
		out = append(out, [2]string{k, v.doc})
	}
	out = append(out, callDocs()...)
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// duplicateField returns a field name that a struct within t repeats, or "".
func duplicateField(t sparktype.Type) string {
	switch t.Kind {
	case sparktype.Struct:
		seen := map[string]bool{}
		for _, f := range t.Fields() {
			if seen[f.Name] {
				return f.Name
			}
			seen[f.Name] = true
			if d := duplicateField(f.Type); d != "" {
				return d
			}
		}
	case sparktype.Array:
		e, _ := t.Elem()
		return duplicateField(e)
	case sparktype.Map:
		k, v, _ := t.KeyValue()
		if d := duplicateField(k); d != "" {
			return d
		}
		return duplicateField(v)
	}
	return ""
}

// nestedArgument returns the type of the first direct child expression of e whose type is nested,
// or "" when there is none.
func nestedArgument(e *plan.Expr) string {
	for name, raw := range e.Fields {
		if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
			continue
		}
		// Child and Children rather than json.Unmarshal: they reuse the request's parse.
		var kids []*plan.Expr
		var err error
		if raw[0] == '{' {
			var one *plan.Expr
			one, err = e.Child(name)
			kids = []*plan.Expr{one}
		} else {
			kids, err = e.Children(name)
		}
		if err != nil {
			continue
		}
		for i := range kids {
			if kids[i] == nil || kids[i].Class == "" || len(kids[i].DataType) == 0 {
				continue
			}
			if t, err := kids[i].Type(); err == nil && t.Nested() {
				return t.String()
			}
		}
	}
	return ""
}
