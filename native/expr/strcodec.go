package expr

import (
	"encoding/base64"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// base64(bin): Spark 4.1 rewrites Base64 into StaticInvoke of Base64.encode(bytes, chunkBase64)
// (chunkBase64 is the literal of spark.sql.chunkBase64String.enabled): java.util.Base64's basic
// encoder (RFC 4648 with padding), or with chunking its MIME encoder, which ends a line with
// CRLF after every 76 characters (none after the last line).

const sparkBase64 = "org.apache.spark.sql.catalyst.expressions.Base64"

func init() {
	registerCall("Spark's Base64", "base64(bin): RFC 4648 with padding, in lines of 76 characters joined by CRLF when spark.sql.chunkBase64String.enabled",
		translateBase64Call, sparkBase64)
}

func translateBase64Call(c *call, conf *plan.Conf) (Expr, error) {
	if c.method != "encode" {
		return nil, unsupported("StaticInvoke of Base64.%s is not supported natively", c.method)
	}
	if err := c.checkArity(2); err != nil {
		return nil, err
	}
	if !defaultString(c.typ) {
		return nil, unsupported("base64 returning %s is not supported natively", c.typ)
	}
	bin, err := Translate(c.args[0], conf)
	if err != nil {
		return nil, err
	}
	if bin.Type().Kind != sparktype.Binary {
		return nil, unsupported("base64 of %s is not supported natively (binary expected)", bin.Type())
	}
	chunkArg, err := Translate(c.args[1], conf)
	if err != nil {
		return nil, err
	}
	ce, ok := chunkArg.(constExpr)
	if !ok || chunkArg.Type().Kind != sparktype.Boolean {
		return nil, unsupported("base64 with a chunking argument that is not a boolean literal is not supported natively")
	}
	ca, ok := ce.constArray().(*array.Boolean)
	if !ok || ca.IsNull(0) {
		return nil, unsupported("base64 with a null chunking argument is not supported natively")
	}
	if !ca.Value(0) {
		return &bytesFn{name: "base64", child: bin, typ: c.typ, maxLen: base64.StdEncoding.EncodedLen, fn: func(dst, s []byte) (int, bool) {
			base64.StdEncoding.Encode(dst, s)
			return base64.StdEncoding.EncodedLen(len(s)), true
		}}, nil
	}
	return &bytesFn{name: "base64_chunked", child: bin, typ: c.typ, maxLen: mimeLen, fn: func(dst, s []byte) (int, bool) {
		m := mimeLen(len(s))
		// Encode in 57-byte pieces (76 characters each), CRLF between lines.
		w := 0
		for len(s) > 0 {
			k := min(len(s), 57)
			base64.StdEncoding.Encode(dst[w:], s[:k])
			w += base64.StdEncoding.EncodedLen(k)
			s = s[k:]
			if len(s) > 0 {
				dst[w], dst[w+1] = '\r', '\n'
				w += 2
			}
		}
		return m, true
	}}, nil
}

// mimeLen is the length of java.util.Base64's MIME encoding of n bytes.
func mimeLen(n int) int {
	l := base64.StdEncoding.EncodedLen(n)
	if l == 0 {
		return 0
	}
	return l + 2*((l-1)/76)
}
