package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
)

// Rebind returns a deep copy of e in which every attribute reference is bound to a new input:
// its ordinal becomes ordinals[exprId]. Operators whose expressions read something other than
// their child's output (an aggregate's result expressions read grouping attributes ++ aggregate
// results) rebind before translating. e itself, shared by every task, is not modified. An
// attribute whose exprId is not in ordinals is an error.
func Rebind(e *Expr, ordinals map[int64]int) (*Expr, error) {
	if e == nil {
		return nil, nil
	}
	out := *e
	if ShortClass(e.Class) == "AttributeReference" {
		if e.ExprID == nil {
			return nil, fmt.Errorf("attribute %s has no exprId", e.Name)
		}
		o, ok := ordinals[*e.ExprID]
		if !ok {
			return nil, fmt.Errorf("attribute %s#%d cannot be bound to the new input", e.Name, *e.ExprID)
		}
		id := *e.ExprID
		out.ExprID = &id
		out.Ordinal = &o
	} else {
		if e.ExprID != nil {
			id := *e.ExprID
			out.ExprID = &id
		}
		if e.Ordinal != nil {
			o := *e.Ordinal
			out.Ordinal = &o
		}
	}
	out.DataType = append(json.RawMessage(nil), e.DataType...)
	if e.Fields != nil {
		out.Fields = make(map[string]json.RawMessage, len(e.Fields))
		// In field-name order, so that an unbound attribute is reported the same way every run.
		for _, k := range slices.Sorted(maps.Keys(e.Fields)) {
			nr, err := rebindValue(e.Fields[k], ordinals)
			if err != nil {
				return nil, err
			}
			out.Fields[k] = nr
		}
	}
	return &out, nil
}

// rebindValue rebinds the expressions inside one encoded field value: an expression (an object
// with "class" and "dataType") or a sequence of values; anything else is copied.
func rebindValue(raw json.RawMessage, ordinals map[int64]int) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return append(json.RawMessage(nil), raw...), nil
	}
	switch t[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(t, &elems); err != nil {
			return nil, err
		}
		for i, el := range elems {
			ne, err := rebindValue(el, ordinals)
			if err != nil {
				return nil, err
			}
			elems[i] = ne
		}
		return json.Marshal(elems)
	case '{':
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(t, &probe); err != nil {
			return nil, err
		}
		_, hasClass := probe["class"]
		_, hasType := probe["dataType"]
		if !hasClass {
			return append(json.RawMessage(nil), raw...), nil
		}
		if !hasType {
			// A product that is not an expression (CaseWhen's branches are scala.Tuple2s of
			// condition and value) may still hold expressions in its fields.
			return rebindProduct(probe, ordinals)
		}
		var sub Expr
		if err := json.Unmarshal(t, &sub); err != nil {
			return nil, err
		}
		ns, err := Rebind(&sub, ordinals)
		if err != nil {
			return nil, err
		}
		return json.Marshal(ns)
	}
	return append(json.RawMessage(nil), raw...), nil
}

// rebindProduct rebinds the expressions inside the fields of an encoded product.
func rebindProduct(probe map[string]json.RawMessage, ordinals map[int64]int) (json.RawMessage, error) {
	raw, ok := probe["fields"]
	if !ok {
		return json.Marshal(probe)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return json.Marshal(probe) // not an object of fields: nothing to rebind
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) { // in name order, as Rebind
		nv, err := rebindValue(fields[k], ordinals)
		if err != nil {
			return nil, err
		}
		fields[k] = nv
	}
	nf, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	probe["fields"] = nf
	return json.Marshal(probe)
}

// ProductFields returns the fields of an encoded product that is not an expression (an object
// with "class" and "fields" but no "dataType", such as CaseWhen's scala.Tuple2 branches), for
// walkers that must look for expressions inside it; nil for anything else.
func ProductFields(probe map[string]json.RawMessage) map[string]json.RawMessage {
	if _, ok := probe["class"]; !ok {
		return nil
	}
	if _, ok := probe["dataType"]; ok {
		return nil
	}
	var fields map[string]json.RawMessage
	if raw, ok := probe["fields"]; ok {
		_ = json.Unmarshal(raw, &fields)
	}
	return fields
}

// References returns the child column ordinals e reads (its attribute references bound to a
// child column, and bound references), sorted and without duplicates. Operators that evaluate an
// expression over a subset of rows copy only these columns.
func References(e *Expr) ([]int, error) {
	seen := map[int]bool{}
	if err := collectReferences(e, seen); err != nil {
		return nil, err
	}
	out := make([]int, 0, len(seen))
	for o := range seen {
		out = append(out, o)
	}
	sort.Ints(out)
	return out, nil
}

func collectReferences(e *Expr, seen map[int]bool) error {
	if e == nil {
		return nil
	}
	switch ShortClass(e.Class) {
	case "AttributeReference", "BoundReference":
		if e.Ordinal != nil && *e.Ordinal >= 0 {
			seen[*e.Ordinal] = true
		}
	}
	for name, raw := range e.Fields {
		var err error
		if j := e.exprValue(name, raw); j >= 0 {
			err = referencesInTree(e.src, j, seen)
		} else {
			err = referencesIn(raw, seen)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// referencesInTree is referencesIn over a value of a parsed tree, without scanning its bytes
// again; values it cannot walk exactly as referencesIn would go to referencesIn.
func referencesInTree(t *tree, j int32, seen map[int]bool) error {
	switch t.vals[j].kind {
	case '[':
		for el := j + 1; el < t.vals[j].next; el = t.vals[el].next {
			if err := referencesInTree(t, el, seen); err != nil {
				return err
			}
		}
	case '{':
		if !t.plainObject(j) {
			return referencesIn(t.raw(j), seen)
		}
		if t.member(j, "class") < 0 {
			return nil
		}
		if t.member(j, "dataType") < 0 {
			f := t.member(j, "fields")
			if f < 0 || t.vals[f].kind != '{' {
				return nil
			}
			if !t.plainObject(f) {
				return referencesIn(t.raw(j), seen)
			}
			for m := f + 1; m < t.vals[f].next; m = t.vals[m].next {
				if err := referencesInTree(t, m, seen); err != nil {
					return err
				}
			}
			return nil
		}
		sub, ok := t.expr(j)
		if !ok {
			return referencesIn(t.raw(j), seen)
		}
		return collectReferences(sub, seen)
	}
	return nil
}

// referencesIn walks one encoded field value: an expression or a sequence of values.
func referencesIn(raw json.RawMessage, seen map[int]bool) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	switch t[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(t, &elems); err != nil {
			return err
		}
		for _, el := range elems {
			if err := referencesIn(el, seen); err != nil {
				return err
			}
		}
	case '{':
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(t, &probe); err != nil {
			return err
		}
		_, hasClass := probe["class"]
		_, hasType := probe["dataType"]
		if !hasClass {
			return nil
		}
		if !hasType {
			for _, v := range ProductFields(probe) {
				if err := referencesIn(v, seen); err != nil {
					return err
				}
			}
			return nil
		}
		var sub Expr
		if err := json.Unmarshal(t, &sub); err != nil {
			return err
		}
		return collectReferences(&sub, seen)
	}
	return nil
}
