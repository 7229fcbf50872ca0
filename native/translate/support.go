package translate

import (
	"fmt"
	"strings"

	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/iceberg"
)

// SupportDoc renders the support matrix from the registries, so that nobody keeps a list by hand
// (docs/supported.md is generated from it by `make docs`).
func SupportDoc() string {
	var b strings.Builder
	b.WriteString("# What Bolide runs natively\n\n")
	b.WriteString("Generated from the engine's registries (`make docs`); do not edit by hand.\n")
	b.WriteString("Anything not listed stays in Spark, with the reason shown by `EXPLAIN EXTENDED` ")
	b.WriteString("(see troubleshooting.md).\n\n## Operators\n\n")
	b.WriteString("| Spark operator | Bolide operator | enable key | notes |\n|---|---|---|---|\n")
	for _, r := range Rules() {
		fmt.Fprintf(&b, "| %s | %s | `spark.bolide.exec.%s.enabled` | %s |\n", r.SparkClass, r.Name, r.ConfKey, r.Doc)
	}
	b.WriteString("\n## Expressions\n\nBy Catalyst class; [functions.md](functions.md) lists Spark's built-in functions one by one.\n\n")
	b.WriteString("| Spark expression | notes |\n|---|---|\n")
	for _, e := range expr.Supported() {
		fmt.Fprintf(&b, "| %s | %s |\n", e[0], e[1])
	}
	b.WriteString("\n## Iceberg\n\nIceberg Java plans every scan; BolideIcebergScan reads what it planned. ")
	b.WriteString("A scan that needs a feature marked *Iceberg Java* stays in Spark with that reason.\n\n")
	b.WriteString("| feature | read by | notes |\n|---|---|---|\n")
	for _, f := range iceberg.Features() {
		by := "Iceberg Java"
		if f.Native {
			by = "native"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", f.Name, by, f.Note)
	}
	return b.String()
}
