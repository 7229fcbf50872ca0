package expr

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/exec"
)

// The golden answers were recorded on Java 17: Double.toString's digits depend on the version,
// the region IDs a timestamp string may name on its tzdb.
func init() {
	SetJavaVersion(17)
	b, err := os.ReadFile("testdata/javazoneids.txt")
	if err != nil {
		panic(err)
	}
	var ids []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			ids = append(ids, l)
		}
	}
	SetJavaZoneIDs(ids)
}

// TestCastGolden replays testdata/casts.tsv: Spark 4.1.3's own answers (Cast.eval on JDK 17,
// one value at a time) for casts from and to strings and dates in LEGACY, ANSI and TRY mode.
// Each line is: from type, to type (SQL names), mode, session time zone, input, Spark's result.
// Inputs and string results are hex-encoded bytes (invalid UTF-8 included), doubles and floats
// their bits; errors are "ERR <class> <exception> <message parameters as JSON>".
func TestCastGolden(t *testing.T) {
	f, err := os.Open("testdata/casts.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n, failed := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 6 {
			t.Fatalf("bad line %q", line)
		}
		n++
		got := goldenCast(t, p[0], p[1], p[2], p[3], p[4])
		if got != p[5] && !sameException(got, p[5]) {
			failed++
			if failed <= 40 {
				t.Errorf("cast(%s as %s) %s %s input %s (%q):\n got  %s\n want %s", p[0], p[1], p[2], p[3], p[4], goldenInputText(p[0], p[4]), got, p[5])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if failed > 0 {
		t.Errorf("%d of %d golden casts differ", failed, n)
	}
	if n == 0 {
		t.Fatal("no golden casts")
	}
}

// sameException accepts the engine's own error for a Java exception Spark raises without an
// error class ("EXC java.lang.ArithmeticException: <message>"): the message must be in it.
func sameException(got, want string) bool {
	_, msg, ok := strings.Cut(want, ": ")
	return ok && strings.HasPrefix(want, "EXC ") && strings.HasPrefix(got, "EXC ") && strings.Contains(got, msg)
}

func goldenInputText(from, in string) string {
	if from == "string" {
		b, _ := hex.DecodeString(in)
		return string(b)
	}
	return in
}

// sparkTypeName maps a SQL type name to the JSON name the plan carries.
func sparkTypeName(sql string) string {
	switch sql {
	case "tinyint":
		return "byte"
	case "smallint":
		return "short"
	case "int":
		return "integer"
	case "bigint":
		return "long"
	}
	return sql
}

func goldenCast(t *testing.T, from, to, mode, tz, in string) string {
	t.Helper()
	v := goldenValue(t, from, in)
	fj, tj := sparkTypeName(from), sparkTypeName(to)
	js := node("Cast", tj, "child", col(0, fj), "dataType", fmt.Sprintf(`{"type":%s}`, q(tj)), "timeZoneId", q(tz), "evalMode", q(mode))
	e := mustTranslate(t, js)
	ctx := newCtx()
	b := batch(column(t, fj, v))
	out, err := e.Eval(ctx, b)
	if err != nil {
		if ctx.Alloc.Used() != 0 {
			t.Errorf("%s: %d bytes leaked on error", e, ctx.Alloc.Used())
		}
		se, ok := exec.AsSparkError(err)
		if !ok {
			return "EXC " + err.Error()
		}
		return "ERR " + se.Class + " " + goldenException(se) + " " + goldenParams(se.Params)
	}
	defer out.Release()
	return goldenRender(out, 0)
}

// goldenValue converts a golden input to the Go value the column builder takes.
func goldenValue(t *testing.T, from, in string) any {
	t.Helper()
	var v any
	switch from {
	case "string":
		b, err := hex.DecodeString(in)
		if err != nil {
			t.Fatal(err)
		}
		v = string(b)
	case "double":
		u, _ := strconv.ParseUint(in, 16, 64)
		v = math.Float64frombits(u)
	case "float":
		u, _ := strconv.ParseUint(in, 16, 32)
		v = math.Float32frombits(uint32(u))
	case "int", "date", "tinyint", "smallint":
		x, _ := strconv.Atoi(in)
		v = x
	case "bigint", "timestamp", "timestamp_ntz":
		x, _ := strconv.ParseInt(in, 10, 64)
		v = x
	case "boolean":
		v = in == "true"
	default:
		if strings.HasPrefix(from, "decimal") {
			var s int
			fmt.Sscanf(from[strings.Index(from, ",")+1:], "%d", &s)
			r, ok := new(big.Rat).SetString(in)
			if !ok {
				t.Fatalf("bad decimal %s", in)
			}
			r.Mul(r, new(big.Rat).SetInt(pow10Big(s)))
			v = r.Num().String()
		} else {
			t.Fatalf("no golden input type %s", from)
		}
	}
	return v
}

// goldenException names the Spark exception the JVM rethrows a SparkError as (BolideErrors).
func goldenException(se *exec.SparkError) string {
	switch {
	case se.Class == "CAST_INVALID_INPUT":
		switch se.Params["targetType"] {
		case `"BOOLEAN"`:
			return "SparkRuntimeException"
		case `"DATE"`, `"TIMESTAMP"`, `"TIMESTAMP_NTZ"`:
			return "SparkDateTimeException"
		}
		return "SparkNumberFormatException"
	case se.Exception == "arithmetic":
		return "SparkArithmeticException"
	case se.Exception == "datetime":
		return "SparkDateTimeException"
	}
	return "SparkRuntimeException"
}

// goldenParams renders message parameters as the recorder does: sorted keys, quotes and
// backslashes escaped, every character outside printable ASCII as \uXXXX (UTF-16 units).
func goldenParams(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	quote := func(s string) {
		sb.WriteByte('"')
		for _, r := range s {
			switch {
			case r == '"' || r == '\\':
				sb.WriteByte('\\')
				sb.WriteRune(r)
			case r > 0xFFFF:
				r -= 0x10000
				fmt.Fprintf(&sb, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			case r < 0x20 || r > 0x7E:
				fmt.Fprintf(&sb, `\u%04x`, r)
			default:
				sb.WriteRune(r)
			}
		}
		sb.WriteByte('"')
	}
	sb.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		quote(k)
		sb.WriteByte(':')
		quote(p[k])
	}
	sb.WriteByte('}')
	return sb.String()
}

func goldenRender(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch x := a.(type) {
	case *array.Float64:
		return "d:" + strconv.FormatUint(math.Float64bits(x.Value(i)), 16)
	case *array.Float32:
		return "f:" + strconv.FormatUint(uint64(math.Float32bits(x.Value(i))), 16)
	case *array.String:
		return "s:" + hex.EncodeToString([]byte(x.Value(i)))
	}
	return show(a, i)
}

// TestCastGoldenBatches evaluates the golden casts that give a value (no error) a column at a
// time, each value followed by a null: the kernels' batch paths (output buffers that grow,
// offsets, validity) against the same answers.
func TestCastGoldenBatches(t *testing.T) {
	f, err := os.Open("testdata/casts.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type group struct{ from, to, mode, tz string }
	inputs := map[group][]string{}
	wants := map[group][]string{}
	var order []group
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 6 || strings.HasPrefix(p[5], "ERR") || strings.HasPrefix(p[5], "EXC") {
			continue
		}
		g := group{p[0], p[1], p[2], p[3]}
		if _, ok := inputs[g]; !ok {
			order = append(order, g)
		}
		inputs[g] = append(inputs[g], p[4])
		wants[g] = append(wants[g], p[5])
	}
	for _, g := range order {
		var vals []any
		for _, in := range inputs[g] {
			vals = append(vals, goldenValue(t, g.from, in), nil)
		}
		fj, tj := sparkTypeName(g.from), sparkTypeName(g.to)
		js := node("Cast", tj, "child", col(0, fj), "dataType", fmt.Sprintf(`{"type":%s}`, q(tj)), "timeZoneId", q(g.tz), "evalMode", q(g.mode))
		e := mustTranslate(t, js)
		ctx := newCtx()
		out, err := e.Eval(ctx, batch(column(t, fj, vals...)))
		if err != nil {
			t.Errorf("%v: %v", g, err)
			continue
		}
		for i, want := range wants[g] {
			if got := goldenRender(out, 2*i); got != want {
				t.Errorf("%v input %s: batch got %s, want %s", g, inputs[g][i], got, want)
			}
			if !out.IsNull(2*i + 1) {
				t.Errorf("%v: a null input gave a value", g)
			}
		}
		out.Release()
		if ctx.Alloc.Used() != 0 {
			t.Errorf("%v: %d bytes leaked", g, ctx.Alloc.Used())
		}
	}
}
