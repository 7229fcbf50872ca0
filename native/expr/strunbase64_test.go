package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// unb64Golden: java.util.Base64.getMimeDecoder().decode(UTF8String.fromBytes(in).toString()) as
// Spark 4.1.3's UnBase64 runs it (decoded bytes, or ERR: and the IllegalArgumentException
// message), and UnBase64.isValidBase64 from the Spark 4.1.3 jar (to_binary's check).
var unb64Golden = []struct {
	in    string
	want  string
	valid bool
}{
	{"", `""`, true},
	{"QQ==", `"A"`, true},
	{"QQ", `"A"`, true},
	{"QQ=", `ERR:Input byte array has wrong 4-byte ending unit`, false},
	{"Q", `ERR:Last unit does not have enough valid bits`, false},
	{"QUJD", `"ABC"`, true},
	{"QUJDRA", `"ABCD"`, true},
	{"QUJDRA==", `"ABCD"`, true},
	{"QUJDRA=", `ERR:Input byte array has wrong 4-byte ending unit`, false},
	{"QU JD\x0aRA==", `"ABCD"`, true},
	{"QUJDRA==\x0a", `"ABCD"`, false},
	{"QUJDRA==QQ", `ERR:Input byte array has incorrect ending byte at 9`, false},
	{"QUJDRA===", `"ABCD"`, false},
	{"QQ=a", `ERR:Input byte array has wrong 4-byte ending unit`, false},
	{"=", `ERR:Input byte array has wrong 4-byte ending unit`, false},
	{"==QQ", `ERR:Input byte array has wrong 4-byte ending unit`, false},
	{"QUJD\xc3\xa9RA", `"ABCD"`, false},
	{"\xff\xfeQUJD", `"ABC"`, false},
	{"QQ=\x0a=", `ERR:Input byte array has wrong 4-byte ending unit`, false},
	{"QUJ", `"AB"`, true},
	{"QUJ=", `"AB"`, true},
	{"QUJ==", `"AB"`, false},
	{"A\x09B\x0bCD", `"\x00\x10\x83"`, true},
	{"\xe2\x80\x83QUJD", `"ABC"`, true},
	{"\xc2\xa0QUJD", `"ABC"`, false},
	{"QU\x1cJD", `"ABC"`, true},
	{"Q=Q=", `ERR:Last unit does not have enough valid bits`, false},
	{"!!!!", `""`, false},
	{"QUJDRA==!", `"ABCD"`, false},
	{"QQ==QQ==", `ERR:Input byte array has incorrect ending byte at 5`, false},
	{"\xf0\x9f\x98\x80QUJD", `"ABC"`, false},
	{"Zm9vYmFy", `"foobar"`, true},
	{"Zm9v-YmFy_", `"foobar"`, false},
	{"QQ\x3d\x3d", `"A"`, true},
}

func unb64Quote(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\x%02x", c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

func unb64JSON(failOnError bool) string {
	return node("UnBase64", "binary", "child", col(0, "string"), "failOnError", fmt.Sprint(failOnError))
}

func TestUnBase64Golden(t *testing.T) {
	for _, foe := range []bool{false, true} {
		e := mustTranslate(t, unb64JSON(foe))
		for _, g := range unb64Golden {
			ctx := newCtx()
			c := column(t, "string", g.in, nil)
			out, err := e.Eval(ctx, batch(c))
			c.Release()
			want := g.want
			if foe && !g.valid {
				want = "CONVERSION"
			}
			switch {
			case want == "CONVERSION":
				expectSparkError(t, fmt.Sprintf("to_binary(%q)", g.in), err, "CONVERSION_INVALID_INPUT", map[string]string{"fmt": "'BASE64'"})
			case strings.HasPrefix(want, "ERR:"):
				if err == nil || !strings.HasSuffix(err.Error(), want[4:]) {
					t.Errorf("unbase64(%q): got %v, want error %s", g.in, err, want[4:])
				}
			case err != nil:
				t.Errorf("unbase64(%q) (failOnError %v): %v", g.in, foe, err)
			default:
				bin := out.(*array.Binary)
				if got := unb64Quote(bin.Value(0)); got != want || !bin.IsNull(1) {
					t.Errorf("unbase64(%q) (failOnError %v) = %s, want %s", g.in, foe, got, want)
				}
				out.Release()
			}
			if ctx.Alloc.Used() != 0 {
				t.Errorf("unbase64(%q): %d bytes leaked", g.in, ctx.Alloc.Used())
			}
		}
	}
}

func TestUnBase64Batch(t *testing.T) {
	var ins []any
	var want []string
	for _, g := range unb64Golden {
		if !strings.HasPrefix(g.want, "ERR") {
			ins = append(ins, g.in, nil)
			want = append(want, g.want, "null")
		}
	}
	e := mustTranslate(t, unb64JSON(false))
	ctx := newCtx()
	c := column(t, "string", ins...)
	defer c.Release()
	out, err := e.Eval(ctx, batch(c))
	if err != nil {
		t.Fatal(err)
	}
	bin := out.(*array.Binary)
	for i := range want {
		got := "null"
		if !bin.IsNull(i) {
			got = unb64Quote(bin.Value(i))
		}
		if got != want[i] {
			t.Errorf("row %d (%q): %s, want %s", i, ins[i], got, want[i])
		}
	}
	out.Release()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%d bytes leaked", ctx.Alloc.Used())
	}
}
