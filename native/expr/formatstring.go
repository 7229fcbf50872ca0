package expr

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// format_string / printf (FormatString): Spark formats with java.util.Formatter(Locale.US) over
// the arguments' internal values (UTF8String, whose toString is taken, and boxed Java integers
// and booleans). Java's formatter has its own algorithms for floating point, dates and locales,
// so only a subset is run here, proven against the JDK by the goldens: a literal format whose
// specifiers are
//   - %s (strings, integers, booleans; '-' with a width, a width, a precision truncating to that
//     many UTF-16 units, a cut surrogate pair becoming '?' as UTF8String.fromString encodes it),
//   - %b / %B (null is false, a boolean its value, anything else true),
//   - %d of integers ('-', '0', '+', ' ' flags and a width), %x / %X / %o of integers ('-', '0',
//     '#' and a width; negative values in two's complement of the argument's own width, as
//     Formatter adds 2^8, 2^16 or 2^32 for Byte, Short and Integer), a null printing "null",
//   - %% and %n ("\n"), explicit argument indexes n$,
// with arguments of type string (UTF8_BINARY), byte, short, int, long or boolean. Everything else
// (other conversions, %S, ',' '(' '<' flags, a flag Java rejects for the conversion, a missing
// argument, other argument types) is refused with the specifier named, so it stays in Spark.

func init() {
	Register("FormatString", "format_string / printf with a literal format of %s %b %B %d %x %X %o %% %n (flags '-' '0' '+' ' ' '#' as Java allows them, width, %s precision, n$ indexes) over string, integral and boolean arguments; other specifiers refused", translateFormatString)
}

type fmtStrSpec struct {
	lit                          []byte // literal text when conv == 0
	conv                         byte
	arg                          int // 0-based argument
	left, zero, plus, space, alt bool
	width, prec                  int // -1: none
}

type formatString struct {
	format string
	isNull bool
	specs  []fmtStrSpec
	args   []Expr
	typ    sparktype.Type
}

// fmtStrParse reads a Java format string into literal text and specifiers, refusing what is not
// in the subset; nargs checks the argument references.
func fmtStrParse(format string, argTypes []sparktype.Type) ([]fmtStrSpec, error) {
	refuse := func(spec, why string) error {
		return unsupported("format_string: specifier %q of format %q %s (it runs in Spark)", spec, format, why)
	}
	var out []fmtStrSpec
	var lit []byte
	seq := 0
	rs := []rune(format)
	for i := 0; i < len(rs); {
		if rs[i] != '%' {
			lit = utf8.AppendRune(lit, rs[i])
			i++
			continue
		}
		start := i
		i++
		sp := fmtStrSpec{width: -1, prec: -1, arg: -1}
		// n$
		j := i
		for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
			j++
		}
		if j > i && j < len(rs) && rs[j] == '$' {
			n, err := strconv.Atoi(string(rs[i:j]))
			if err != nil || n < 1 {
				return nil, refuse(string(rs[start:j+1]), "has an argument index that is not supported natively")
			}
			sp.arg = n - 1
			i = j + 1
		}
		seen := map[rune]bool{}
		for i < len(rs) && strings.ContainsRune("-#+ 0,(<", rs[i]) {
			if seen[rs[i]] {
				return nil, refuse(string(rs[start:i+1]), "repeats a flag (Java rejects it)")
			}
			seen[rs[i]] = true
			switch rs[i] {
			case '-':
				sp.left = true
			case '#':
				sp.alt = true
			case '+':
				sp.plus = true
			case ' ':
				sp.space = true
			case '0':
				sp.zero = true
			default:
				return nil, refuse(string(rs[start:i+1]), "uses a flag that is not supported natively")
			}
			i++
		}
		j = i
		for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
			j++
		}
		if j > i {
			w, err := strconv.Atoi(string(rs[i:j]))
			if err != nil || w > 1<<20 {
				return nil, refuse(string(rs[start:j]), "has a width that is not supported natively")
			}
			sp.width = w
			i = j
		}
		if i < len(rs) && rs[i] == '.' {
			j = i + 1
			for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
				j++
			}
			if j == i+1 {
				return nil, refuse(string(rs[start:j]), "has a precision without digits (Java rejects it)")
			}
			p, err := strconv.Atoi(string(rs[i+1 : j]))
			if err != nil || p > 1<<20 {
				return nil, refuse(string(rs[start:j]), "has a precision that is not supported natively")
			}
			sp.prec = p
			i = j
		}
		if i >= len(rs) {
			return nil, refuse(string(rs[start:]), "is incomplete (Java rejects it)")
		}
		c := rs[i]
		i++
		text := string(rs[start:i])
		flags := sp.left || sp.zero || sp.plus || sp.space || sp.alt
		switch c {
		case '%', 'n':
			if flags || sp.width >= 0 || sp.prec >= 0 || sp.arg >= 0 {
				return nil, refuse(text, "has flags, a width, a precision or an index, not supported natively")
			}
			if c == '%' {
				lit = append(lit, '%')
			} else {
				lit = append(lit, '\n')
			}
			continue
		case 's', 'b', 'B':
			if sp.zero || sp.plus || sp.space || sp.alt {
				return nil, refuse(text, "has a flag Java rejects for it")
			}
		case 'd':
			if sp.alt || sp.prec >= 0 || sp.plus && sp.space {
				return nil, refuse(text, "has a flag or precision Java rejects for it")
			}
		case 'x', 'X', 'o':
			if sp.plus || sp.space || sp.prec >= 0 {
				return nil, refuse(text, "has a flag or precision Java rejects for it")
			}
		default:
			return nil, refuse(text, "is not supported natively")
		}
		if (sp.left || sp.zero) && sp.width < 0 || sp.left && sp.zero {
			return nil, refuse(text, "has '-' or '0' without a width or both (Java rejects it)")
		}
		sp.conv = byte(c)
		if sp.arg < 0 {
			sp.arg = seq
			seq++
		}
		if sp.arg >= len(argTypes) {
			return nil, refuse(text, "has no argument (Java raises MissingFormatArgumentException)")
		}
		at := argTypes[sp.arg]
		switch c {
		case 'd', 'x', 'X', 'o':
			switch at.Kind {
			case sparktype.Byte, sparktype.Short, sparktype.Int, sparktype.Long:
			default:
				return nil, refuse(text, fmt.Sprintf("of a %s argument is not supported natively", at))
			}
		}
		if len(lit) > 0 {
			out = append(out, fmtStrSpec{lit: lit})
			lit = nil
		}
		out = append(out, sp)
	}
	if len(lit) > 0 {
		out = append(out, fmtStrSpec{lit: lit})
	}
	return out, nil
}

func translateFormatString(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := defaultStringResult(pe)
	if err != nil {
		return nil, err
	}
	kids, err := translateChildren(pe, "children", conf)
	if err != nil {
		return nil, err
	}
	if len(kids) == 0 {
		return nil, unsupported("format_string without a format")
	}
	lit, ok := kids[0].(*Literal)
	if !ok || !binaryCollation(kids[0].Type()) {
		return nil, unsupported("format_string with a non-literal or non-UTF8_BINARY format (%s) is not supported natively", kids[0])
	}
	e := &formatString{args: kids[1:], typ: t}
	var types []sparktype.Type
	for _, a := range e.args {
		at := a.Type()
		switch {
		case at.Kind == sparktype.Byte || at.Kind == sparktype.Short || at.Kind == sparktype.Int ||
			at.Kind == sparktype.Long || at.Kind == sparktype.Boolean || binaryCollation(at):
		default:
			return nil, unsupported("format_string of a %s argument is not supported natively", at)
		}
		types = append(types, at)
	}
	if lit.IsNull() {
		e.isNull = true
		return e, nil
	}
	offs, data := binaryParts(lit.constArray())
	e.format = javaString(data[offs[0]:offs[1]])
	if e.specs, err = fmtStrParse(e.format, types); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *formatString) Type() sparktype.Type { return e.typ }
func (e *formatString) mayFail() bool {
	for _, a := range e.args {
		if mayFail(a) {
			return true
		}
	}
	return false
}
func (e *formatString) String() string {
	return fmt.Sprintf("format_string(%q, %s)", e.format, joinExprs(e.args))
}

func (e *formatString) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

// evalMasked evaluates the arguments on the rows named by active (nil: all), so that a fallible
// argument raises errors only there.
func (e *formatString) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || e.isNull {
		return allNull(ctx.Alloc, dt, n), nil
	}
	cols := make([]arrow.Array, 0, len(e.args))
	defer func() { releaseArrays(cols) }()
	for _, a := range e.args {
		c, err := evalActive(ctx, b, a, active)
		if err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	out, err := newBytesOut(ctx.Alloc, n, int64(n)*16)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	var row, scratch []byte
	for i := 0; i < n; i++ {
		row = row[:0]
		for k := range e.specs {
			sp := &e.specs[k]
			if sp.conv == 0 {
				row = append(row, sp.lit...)
				continue
			}
			row, scratch = fmtStrFormat(row, scratch, sp, cols[sp.arg], i)
		}
		if err := out.ensure(len(row)); err != nil {
			out.release()
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		out.append(row)
		out.endRow(i)
	}
	return out.finish(dt, n, nil, 0), nil
}

// fmtStrInt reads an integral argument, with its width in bits.
func fmtStrInt(a arrow.Array, i int) (int64, uint) {
	switch a.DataType().ID() {
	case arrow.INT8:
		return int64(values[int8](a)[i]), 8
	case arrow.INT16:
		return int64(values[int16](a)[i]), 16
	case arrow.INT32:
		return int64(values[int32](a)[i]), 32
	}
	return values[int64](a)[i], 64
}

// fmtStrFormat appends one specifier's text for row i of argument a.
func fmtStrFormat(dst, scratch []byte, sp *fmtStrSpec, a arrow.Array, i int) ([]byte, []byte) {
	null := a.IsNull(i)
	var s []byte // the text before justification
	switch sp.conv {
	case 'b', 'B':
		v := !null
		if !null && a.DataType().ID() == arrow.BOOL {
			v = a.(interface{ Value(int) bool }).Value(i)
		}
		s = strconv.AppendBool(scratch[:0], v)
		if sp.conv == 'B' {
			s = []byte(strings.ToUpper(string(s)))
		}
		s = fmtStrTruncate(s, sp.prec)
	case 's':
		switch {
		case null:
			s = append(scratch[:0], "null"...)
		case a.DataType().ID() == arrow.BOOL:
			s = strconv.AppendBool(scratch[:0], a.(interface{ Value(int) bool }).Value(i))
		case a.DataType().ID() == arrow.STRING:
			offs, data := binaryParts(a)
			s = javaDecode(scratch[:0], data[offs[i]:offs[i+1]])
		default:
			v, _ := fmtStrInt(a, i)
			s = strconv.AppendInt(scratch[:0], v, 10)
		}
		s = fmtStrTruncate(s, sp.prec)
	default:
		if null {
			s = append(scratch[:0], "null"...)
			if sp.conv == 'X' {
				s = append(scratch[:0], "NULL"...)
			}
			break
		}
		v, bits := fmtStrInt(a, i)
		s = scratch[:0]
		if sp.conv == 'd' {
			neg := v < 0
			switch {
			case neg:
				s = append(s, '-')
			case sp.plus:
				s = append(s, '+')
			case sp.space:
				s = append(s, ' ')
			}
			mag := strconv.AppendInt(nil, v, 10)
			if neg {
				mag = mag[1:]
			}
			if sp.zero {
				for k := len(s) + len(mag); k < sp.width; k++ {
					s = append(s, '0')
				}
			}
			s = append(s, mag...)
			break
		}
		u := uint64(v)
		if bits < 64 {
			u &= 1<<bits - 1
		}
		base, prefix := 16, "0x"
		if sp.conv == 'o' {
			base, prefix = 8, "0"
		}
		digits := strconv.AppendUint(nil, u, base)
		l := len(digits)
		if sp.alt {
			s = append(s, prefix...)
			l += len(prefix)
		}
		if sp.zero {
			for k := l; k < sp.width; k++ {
				s = append(s, '0')
			}
		}
		s = append(s, digits...)
		if sp.conv == 'X' {
			s = []byte(strings.ToUpper(string(s)))
		}
	}
	// Justify to the width in UTF-16 units.
	pad := sp.width - utf16Len(s)
	if pad > 0 && !sp.left {
		for k := 0; k < pad; k++ {
			dst = append(dst, ' ')
		}
	}
	dst = append(dst, s...)
	if pad > 0 && sp.left {
		for k := 0; k < pad; k++ {
			dst = append(dst, ' ')
		}
	}
	return dst, s[:0]
}

// fmtStrTruncate keeps the first prec UTF-16 units of valid UTF-8 s (prec < 0: all); a
// supplementary character cut in half leaves its high surrogate, which UTF8String.fromString
// encodes as '?'.
func fmtStrTruncate(s []byte, prec int) []byte {
	if prec < 0 {
		return s
	}
	units := 0
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRune(s[i:])
		u := 1
		if w == 4 {
			u = 2
		}
		if units+u > prec {
			if units < prec { // half a pair
				return append(s[:i], '?')
			}
			return s[:i]
		}
		units += u
		i += w
	}
	return s
}
