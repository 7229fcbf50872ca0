package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// asType gives a nested result of the JVM (read with the Arrow type Spark's ArrowUtils wrote) the
// engine's Arrow type for the same Spark type, sharing its buffers. The two differ only in names
// and nullability flags (a list's element field, a struct's fields as Spark spells them) and in
// the zone tag of timestamps, never in layout: the check walks both types together and refuses
// any other difference. a is released (the result holds its buffers).
func asType(a arrow.Array, want arrow.DataType, what string) (arrow.Array, error) {
	defer a.Release()
	if arrow.TypeEqual(a.DataType(), want) {
		a.Retain()
		return a, nil
	}
	d, err := dataAs(a.Data(), want)
	if err != nil {
		return nil, fmt.Errorf("%s: the JVM's result has Arrow type %s, expected %s: %w", what, a.DataType(), want, err)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// dataAs rebuilds d (recursively) with type want over the same buffers.
func dataAs(d arrow.ArrayData, want arrow.DataType) (arrow.ArrayData, error) {
	got := d.DataType()
	if got.ID() != want.ID() {
		return nil, fmt.Errorf("%s where %s was expected", got, want)
	}
	var wantChildren []arrow.DataType
	switch w := want.(type) {
	case *arrow.StructType:
		for _, f := range w.Fields() {
			wantChildren = append(wantChildren, f.Type)
		}
	case *arrow.MapType:
		// A map's one child is its entries struct (key, value).
		wantChildren = []arrow.DataType{w.Elem()}
	case *arrow.ListType:
		wantChildren = []arrow.DataType{w.Elem()}
	case *arrow.Decimal128Type:
		if g := got.(*arrow.Decimal128Type); g.Precision != w.Precision || g.Scale != w.Scale {
			return nil, fmt.Errorf("%s where %s was expected", got, want)
		}
	case *arrow.TimestampType:
		if got.(*arrow.TimestampType).Unit != w.Unit {
			return nil, fmt.Errorf("%s where %s was expected", got, want)
		}
	default:
		if !arrow.TypeEqual(got, want) {
			return nil, fmt.Errorf("%s where %s was expected", got, want)
		}
	}
	children := d.Children()
	if len(children) != len(wantChildren) {
		return nil, fmt.Errorf("%s has %d children where %s has %d", got, len(children), want, len(wantChildren))
	}
	kids := make([]arrow.ArrayData, len(children))
	defer func() {
		for _, k := range kids {
			if k != nil {
				k.Release()
			}
		}
	}()
	for i, c := range children {
		k, err := dataAs(c, wantChildren[i])
		if err != nil {
			return nil, err
		}
		kids[i] = k
	}
	return array.NewData(want, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset()), nil
}
