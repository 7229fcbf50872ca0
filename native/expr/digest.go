package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash/crc32"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Digests of hash.scala over binary input (Spark casts a string argument to binary, its UTF-8
// bytes): Md5, Sha1 and Sha2 return the digest as lowercase hex (commons-codec's
// DigestUtils.*Hex), Crc32 java.util.zip.CRC32's value (IEEE, unsigned 32 bits) as a long.
// Sha2's bit length 224, 256 (or 0), 384, 512 select SHA-224/256/384/512; any other length gives
// null. Null in, null out.

func init() {
	Register("Md5", "md5(bin): MD5 digest as 32 lowercase hex digits; null if bin is null", digestTranslator("md5"))
	Register("Sha1", "sha1(bin): SHA-1 digest as 40 lowercase hex digits; null if bin is null", digestTranslator("sha1"))
	Register("Sha2", "sha2(bin, bitLength): SHA-224/256/384/512 as lowercase hex for bitLength 224, 256 (or 0), 384, 512; null for any other bitLength or a null argument", translateSha2)
	Register("Crc32", "crc32(bin): CRC-32 (IEEE, java.util.zip.CRC32) as an unsigned value in a long; null if bin is null", translateCrc32)
}

func digestChild(pe *plan.Expr, conf *plan.Conf, field string) (Expr, error) {
	c, err := translateChild(pe, field, conf)
	if err != nil {
		return nil, err
	}
	if c.Type().Kind != sparktype.Binary {
		return nil, unsupported("%s of %s is not supported natively (binary expected)", plan.ShortClass(pe.Class), c.Type())
	}
	return c, nil
}

func digestTranslator(name string) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		t, err := pe.Type()
		if err != nil {
			return nil, err
		}
		if !defaultString(t) {
			return nil, unsupported("%s returning %s is not supported natively (UTF8_BINARY strings only)", plan.ShortClass(pe.Class), t)
		}
		c, err := digestChild(pe, conf, "child")
		if err != nil {
			return nil, err
		}
		e := &bytesFn{name: name, child: c, typ: t}
		switch name {
		case "md5":
			e.maxLen = func(int) int { return 2 * md5.Size }
			e.fn = func(dst, s []byte) (int, bool) {
				d := md5.Sum(s)
				return hex.Encode(dst, d[:]), true
			}
		default:
			e.maxLen = func(int) int { return 2 * sha1.Size }
			e.fn = func(dst, s []byte) (int, bool) {
				d := sha1.Sum(s)
				return hex.Encode(dst, d[:]), true
			}
		}
		return e, nil
	}
}

// ---- Sha2 ----

type sha2 struct {
	bin, bits Expr
	typ       sparktype.Type
}

func (e *sha2) Type() sparktype.Type { return e.typ }
func (e *sha2) mayFail() bool        { return mayFail(e.bin) || mayFail(e.bits) }
func (e *sha2) String() string       { return fmt.Sprintf("sha2(%s, %s)", e.bin, e.bits) }

func translateSha2(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	t, err := pe.Type()
	if err != nil {
		return nil, err
	}
	if !defaultString(t) {
		return nil, unsupported("Sha2 returning %s is not supported natively (UTF8_BINARY strings only)", t)
	}
	l, err := digestChild(pe, conf, "left")
	if err != nil {
		return nil, err
	}
	r, err := translateChild(pe, "right", conf)
	if err != nil {
		return nil, err
	}
	if r.Type().Kind != sparktype.Int {
		return nil, unsupported("Sha2 with a bit length of type %s is not supported natively (int expected)", r.Type())
	}
	return &sha2{bin: l, bits: r, typ: t}, nil
}

// sha2Hex writes the hex digest of s for a bit length into dst (of 128 bytes), or returns false.
func sha2Hex(dst, s []byte, bits int32) (int, bool) {
	switch bits {
	case 224:
		d := sha256.Sum224(s)
		return hex.Encode(dst, d[:]), true
	case 0, 256:
		d := sha256.Sum256(s)
		return hex.Encode(dst, d[:]), true
	case 384:
		d := sha512.Sum384(s)
		return hex.Encode(dst, d[:]), true
	case 512:
		d := sha512.Sum512(s)
		return hex.Encode(dst, d[:]), true
	}
	return 0, false
}

func (e *sha2) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *sha2) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	n := b.NumRows
	lo, ro, err := evalLeftThenRight(ctx, b, e.bin, e.bits, active)
	if err != nil {
		return nil, err
	}
	defer lo.release()
	defer ro.release()
	dt := e.typ.Arrow()
	vbuf, nulls, allNullRes := binaryValidity(ctx.Alloc, n, lo, ro)
	if allNullRes || n == 0 {
		return allNull(ctx.Alloc, dt, n), nil
	}
	k := kernelArgs{alloc: ctx.Alloc, n: n, vbuf: vbuf, nulls: nulls}
	offs, data, dm := operandBytes(lo)
	bits, bm := values[int32](ro.arr), ro.mask()
	var capacity int64
	for i := 0; i < n; i++ {
		if k.rowValid(i) {
			capacity += 2 * sha512.Size
		}
	}
	out, err := newBytesOut(ctx.Alloc, n, capacity)
	if err != nil {
		if k.vbuf != nil {
			k.vbuf.Release()
		}
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	for i := 0; i < n; i++ {
		m := 0
		if k.rowValid(i) {
			j := i & dm
			var ok bool
			if m, ok = sha2Hex(out.room(), data[offs[j]:offs[j+1]], bits[i&bm]); !ok {
				k.setNull(i)
			}
		}
		out.end(i, m)
	}
	return out.finish(dt, n, k.vbuf, k.nulls), nil
}

// ---- Crc32 ----

type crc32Expr struct{ child Expr }

func (e *crc32Expr) Type() sparktype.Type { return sparktype.LongType }
func (e *crc32Expr) mayFail() bool        { return mayFail(e.child) }
func (e *crc32Expr) String() string       { return fmt.Sprintf("crc32(%s)", e.child) }

func translateCrc32(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
	c, err := digestChild(pe, conf, "child")
	if err != nil {
		return nil, err
	}
	return &crc32Expr{child: c}, nil
}

func (e *crc32Expr) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *crc32Expr) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := arrow.PrimitiveTypes.Int64
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	offs, data := binaryParts(in)
	obuf, out := newFixed[int64](ctx.Alloc, n)
	for i := range out {
		out[i] = int64(crc32.ChecksumIEEE(data[offs[i]:offs[i+1]]))
	}
	return finish(dt, n, vbuf, obuf, nulls), nil
}
