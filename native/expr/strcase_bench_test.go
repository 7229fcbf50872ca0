package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/memory"
)

// Benchmarks of the string functions of strcase.go, stredit.go and strtrim.go over benchRows strings of
// about 24 bytes: ASCII only (the batch-wide fast path), or with a few multi-byte characters in
// every row (the per-code-point table path), a tenth of the rows null.

func benchStrs(n int, multiByte bool) arrow.Array {
	words := []string{"Spark SQL engine", "hello world", "the quick brown fox", "Bolide native"}
	if multiByte {
		words = []string{"Straße Ünïcödé", "ΑΣ βγ δΣ", "héllo wörld", "😀 grüße aus Köln"}
	}
	b := array.NewStringBuilder(memory.NewTaskAllocator(nil))
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			b.AppendNull()
			continue
		}
		b.Append(words[i%len(words)] + " " + words[(i/4)%len(words)])
	}
	return b.NewArray()
}

// benchFn30Strs is fn30's column s (scripts/functions-data.py): one of 16 words, 3 of them with a
// multi-byte character, a space and a number below 100000; 1 row in 20 null.
func benchFn30Strs(n int) arrow.Array {
	words := []string{"alpha", "Beta", "gamma delta", "épsilon", "Zeta", "ETA", "theta", "iota kappa",
		"lambda", "mü", "nu", "xi omicron", "pi", "rho", "sigma ς", "tau"}
	b := array.NewStringBuilder(memory.NewTaskAllocator(nil))
	for i := 0; i < n; i++ {
		x := uint32(i) * 2654435761
		if (x>>3)%20 == 0 {
			b.AppendNull()
			continue
		}
		b.Append(fmt.Sprintf("%s %d", words[x>>28], (x>>8)%100000))
	}
	return b.NewArray()
}

func BenchmarkCaseMapping(b *testing.B) {
	for _, fn := range []string{"Upper", "Lower", "InitCap"} {
		b.Run(fn+"/fn30", func(b *testing.B) {
			benchEval(b, node(fn, "string", "child", col(0, "string")), benchFn30Strs(benchRows))
		})
	}
	for _, fn := range []string{"Upper", "Lower", "InitCap"} {
		for _, mb := range []bool{false, true} {
			name := fn + "/ascii"
			if mb {
				name = fn + "/multibyte"
			}
			b.Run(name, func(b *testing.B) {
				benchEval(b, node(fn, "string", "child", col(0, "string")), benchStrs(benchRows, mb))
			})
		}
	}
}

func BenchmarkStringEdit(b *testing.B) {
	b.Run("FindInSet", func(b *testing.B) {
		benchEval(b, node("FindInSet", "integer", "left", litStr("world"), "right", col(0, "string")), benchStrs(benchRows, false))
	})
	b.Run("Translate", func(b *testing.B) {
		benchEval(b, node("StringTranslate", "string", "srcExpr", col(0, "string"), "matchingExpr", litStr("aeiouö"),
			"replaceExpr", litStr("AEIOU")), benchStrs(benchRows, true))
	})
	b.Run("TrimWith", func(b *testing.B) {
		benchEval(b, node("StringTrim", "string", "srcStr", col(0, "string"), "trimStr", litStr("Sxö😀 ")),
			benchStrs(benchRows, true))
	})
	b.Run("Overlay", func(b *testing.B) {
		benchEval(b, node("Overlay", "string", "input", col(0, "string"), "replace", litStr("XYZ"), "pos", litInt(3),
			"len", litInt(2)), benchStrs(benchRows, true))
	})
}

// BenchmarkStringPad is fn30's rpad(s, 8, '*') (strings cut to 8 characters) and lpad to 40
// characters (padded), and length(s), each over ASCII and multi-byte strings.
func BenchmarkStringPad(b *testing.B) {
	for _, mb := range []bool{false, true} {
		kind := "/ascii"
		if mb {
			kind = "/multibyte"
		}
		b.Run("RPadCut"+kind, func(b *testing.B) {
			benchEval(b, node("StringRPad", "string", "str", col(0, "string"), "len", litInt(8), "pad", litStr("*")), benchStrs(benchRows, mb))
		})
		b.Run("LPad"+kind, func(b *testing.B) {
			benchEval(b, node("StringLPad", "string", "str", col(0, "string"), "len", litInt(40), "pad", litStr("0")), benchStrs(benchRows, mb))
		})
		b.Run("Length"+kind, func(b *testing.B) {
			benchEval(b, node("Length", "integer", "child", col(0, "string")), benchStrs(benchRows, mb))
		})
	}
}
