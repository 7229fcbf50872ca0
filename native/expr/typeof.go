package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// typeof(x) is the child's DataType.catalogString whatever its value (a null too): a constant,
// so the child is never evaluated, nor needs to be native. Spark marks TypeOf foldable and its
// optimizer usually folds it first; this covers the plans it did not fold. Only atomic types
// whose catalog string the engine knows exactly are native: a UTF8_BINARY string (a collated
// one prints its collation), the numbers, boolean, binary, date, timestamps, decimal and void.

func init() {
	Register("TypeOf", "typeof(x): the catalog string of x's atomic type (int, bigint, decimal(p,s), string, ...), a constant; nested, interval and collated string types refused", translateTypeOf)
}

func translateTypeOf(pe *plan.Expr, _ *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if !binaryCollation(t) {
		return nil, unsupported("TypeOf returning %s is not supported natively (UTF8_BINARY strings only)", t)
	}
	c, err := pe.Child("child")
	if err != nil {
		return nil, err
	}
	ct, err := c.Type()
	if err != nil {
		return nil, err
	}
	if ct.Kind != sparktype.Null && (!ct.Supported() || (ct.Kind == sparktype.String && !binaryCollation(ct))) {
		return nil, unsupported("TypeOf of %s is not supported natively (atomic types only)", ct)
	}
	name := ct.CatalogString()
	one, err := columnar.Constant(memory.DefaultAllocator, sparktype.StringType, name, 1)
	if err != nil {
		return nil, err
	}
	return &Literal{typ: sparktype.StringType, one: one, text: fmt.Sprintf("typeof(%q)", name)}, nil
}
