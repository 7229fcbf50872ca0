package expr

import "math"

// Go versions of the fdlibm 5.3 algorithms behind java.lang.StrictMath (Sun's freely
// distributable fdlibm, whose published C algorithms the JDK carries, partly ported to Java;
// StrictMath's specification requires fdlibm's exact results). They are written here from the
// published algorithms, not taken from Go's math package, because several of Go's functions
// differ in the last bit: math.Exp and math.Log have assembly versions on amd64, math.Atan,
// Asin, Acos, Sinh, Cosh, Tanh and Hypot use other algorithms (Cephes or a scaled square root),
// and math.Cbrt is FreeBSD's revised cbrt, not fdlibm 5.3's.
//
// Two rules keep the results identical to Java's:
//   - every product that feeds an addition is wrapped in float64(...): the Go spec lets a
//     compiler fuse x*y+z into one FMA (it does on arm64, ppc64, s390x, and on amd64 with
//     GOAMD64=v3), and an explicit conversion forbids that; Java never fuses.
//     TestStrictMathGolden passes with GOAMD64=v3, where the compiler fuses as on arm64 (it
//     failed on 1-137 of 200,000 arguments per function before every product was wrapped).
//   - word surgery (fdlibm's __HI/__LO) is done on the IEEE bits, with the C code's signed
//     high word as an int32.

func hiWord(x float64) int32  { return int32(math.Float64bits(x) >> 32) }
func loWord(x float64) uint32 { return uint32(math.Float64bits(x)) }

func fromWords(hi int32, lo uint32) float64 {
	return math.Float64frombits(uint64(uint32(hi))<<32 | uint64(lo))
}

func withHi(x float64, hi int32) float64  { return fromWords(hi, loWord(x)) }
func withLo(x float64, lo uint32) float64 { return fromWords(hiWord(x), lo) }

// addExp adds k to the binary exponent of y by adding to its high word, as fdlibm's
// __HI(y) += k<<20 does (the caller keeps the result normal).
func addExp(y float64, k int32) float64 { return withHi(y, hiWord(y)+k<<20) }

const (
	fdLn2Hi  = 6.93147180369123816490e-01 // 0x3fe62e42 fee00000
	fdLn2Lo  = 1.90821492927058770002e-10 // 0x3dea39ef 35793c76
	fdTwo54  = 1.80143985094819840000e+16 // 0x43500000 00000000
	fdInvLn2 = 1.44269504088896338700e+00 // 0x3ff71547 652b82fe

	// exp's polynomial (e_exp.c), also pow's.
	fdP1 = 1.66666666666666019037e-01  // 0x3FC55555 5555553E
	fdP2 = -2.77777777770155933842e-03 // 0xBF66C16C 16BEBD93
	fdP3 = 6.61375632143793436117e-05  // 0x3F11566A AF25DE2C
	fdP4 = -1.65339022054652515390e-06 // 0xBEBBBD41 C5D26BF1
	fdP5 = 4.13813679705723846039e-08  // 0x3E663769 72BEA4D0

	// log's and log1p's polynomial (e_log.c Lg1..Lg7 = s_log1p.c Lp1..Lp7).
	fdLg1 = 6.666666666666735130e-01 // 3FE55555 55555593
	fdLg2 = 3.999999999940941908e-01 // 3FD99999 9997FA04
	fdLg3 = 2.857142874366239149e-01 // 3FD24924 94229359
	fdLg4 = 2.222219843214978396e-01 // 3FCC71C5 1D8E78AF
	fdLg5 = 1.818357216161805012e-01 // 3FC74664 96CB03DE
	fdLg6 = 1.531383769920937332e-01 // 3FC39A09 D078C69F
	fdLg7 = 1.479819860511658591e-01 // 3FC2F112 DF3E5244
)

var fdInf = math.Inf(1)

// fdNaN is a quiet NaN. Java's NaN results carry whatever payload the hardware produced; Spark
// compares, groups and hashes every NaN alike, so only NaN-ness is reproduced.
var fdNaN = math.NaN()

// strictExp is StrictMath.exp (e_exp.c).
func strictExp(x float64) float64 {
	const (
		oThreshold = 7.09782712893383973096e+02  // 0x40862E42 FEFA39EF
		uThreshold = -7.45133219101941108420e+02 // 0xc0874910 D52D3051
	)
	hx := hiWord(x)
	xsb := uint32(hx) >> 31
	hx &= 0x7fffffff
	if hx >= 0x40862E42 { // |x| >= 709.78...
		if hx >= 0x7ff00000 {
			if (hx&0xfffff)|int32(loWord(x)) != 0 {
				return x + x // NaN
			}
			if xsb == 0 {
				return x
			}
			return 0
		}
		if x > oThreshold {
			return fdInf
		}
		if x < uThreshold {
			return 0
		}
	}
	var hi, lo float64
	var k int32
	if hx > 0x3fd62e42 { // |x| > 0.5 ln2
		if hx < 0x3FF0A2B2 { // and |x| < 1.5 ln2
			if xsb == 0 {
				hi, lo, k = x-fdLn2Hi, fdLn2Lo, 1
			} else {
				hi, lo, k = x+fdLn2Hi, -fdLn2Lo, -1
			}
		} else {
			half := 0.5
			if xsb != 0 {
				half = -0.5
			}
			k = int32(float64(fdInvLn2*x) + half)
			t := float64(k)
			hi = x - float64(t*fdLn2Hi) // t*ln2HI is exact
			lo = float64(t * fdLn2Lo)
		}
		x = hi - lo
	} else if hx < 0x3e300000 { // |x| < 2**-28
		return 1 + x
	}
	t := float64(x * x)
	c := x - float64(t*(fdP1+float64(t*(fdP2+float64(t*(fdP3+float64(t*(fdP4+float64(t*fdP5)))))))))
	if k == 0 {
		return 1 - (float64(x*c)/(c-2.0) - x)
	}
	y := 1 - ((lo - float64(x*c)/(2.0-c)) - hi)
	if k >= -1021 {
		return addExp(y, k)
	}
	return float64(addExp(y, k+1000) * fromWords(0x01700000, 0)) // * 2**-1000
}

// strictExpm1 is StrictMath.expm1 (s_expm1.c).
func strictExpm1(x float64) float64 {
	const (
		oThreshold = 7.09782712893383973096e+02
		q1         = -3.33333333333331316428e-02 // BFA11111 111110F4
		q2         = 1.58730158725481460165e-03  // 3F5A01A0 19FE5585
		q3         = -7.93650757867487942473e-05 // BF14CE19 9EAADBB7
		q4         = 4.00821782732936239552e-06  // 3ED0CFCA 86E65239
		q5         = -2.01099218183624371326e-07 // BE8AFDB7 6E09C32D
	)
	hx := hiWord(x)
	neg := hx < 0
	hx &= 0x7fffffff
	if hx >= 0x4043687A { // |x| >= 56 ln2
		if hx >= 0x40862E42 { // |x| >= 709.78...
			if hx >= 0x7ff00000 {
				if (hx&0xfffff)|int32(loWord(x)) != 0 {
					return x + x
				}
				if !neg {
					return x
				}
				return -1
			}
			if x > oThreshold {
				return fdInf
			}
		}
		if neg { // x < -56 ln2
			return -1
		}
	}
	var hi, lo, c float64
	var k int32
	if hx > 0x3fd62e42 { // |x| > 0.5 ln2
		if hx < 0x3FF0A2B2 { // and |x| < 1.5 ln2
			if !neg {
				hi, lo, k = x-fdLn2Hi, fdLn2Lo, 1
			} else {
				hi, lo, k = x+fdLn2Hi, -fdLn2Lo, -1
			}
		} else {
			half := 0.5
			if neg {
				half = -0.5
			}
			k = int32(float64(fdInvLn2*x) + half)
			t := float64(k)
			hi = x - float64(t*fdLn2Hi)
			lo = float64(t * fdLn2Lo)
		}
		x = hi - lo
		c = (hi - x) - lo
	} else if hx < 0x3c900000 { // |x| < 2**-54
		return x
	}
	hfx := float64(0.5 * x)
	hxs := float64(x * hfx)
	r1 := 1 + float64(hxs*(q1+float64(hxs*(q2+float64(hxs*(q3+float64(hxs*(q4+float64(hxs*q5)))))))))
	t := 3.0 - float64(r1*hfx)
	e := float64(hxs * ((r1 - t) / (6.0 - float64(x*t))))
	if k == 0 {
		return x - (float64(x*e) - hxs)
	}
	e = float64(x*(e-c)) - c
	e -= hxs
	if k == -1 {
		return float64(0.5*(x-e)) - 0.5
	}
	if k == 1 {
		if x < -0.25 {
			return float64(-2.0 * (e - (x + 0.5)))
		}
		return 1 + float64(2.0*(x-e))
	}
	if k <= -2 || k > 56 {
		y := 1 - (e - x)
		return addExp(y, k) - 1
	}
	var y float64
	if k < 20 {
		t = fromWords(0x3ff00000-(0x200000>>k), 0) // 1-2^-k
		y = t - (e - x)
		y = addExp(y, k)
	} else {
		t = fromWords((0x3ff-k)<<20, 0) // 2^-k
		y = x - (e + t)
		y += 1
		y = addExp(y, k)
	}
	return y
}

// strictLog is StrictMath.log (e_log.c).
func strictLog(x float64) float64 {
	hx := hiWord(x)
	lx := loWord(x)
	var k int32
	if hx < 0x00100000 { // x < 2**-1022
		if (hx&0x7fffffff)|int32(lx) == 0 {
			return -fdInf // log(+-0)
		}
		if hx < 0 {
			return fdNaN // log(-#)
		}
		k -= 54
		x *= fdTwo54 // subnormal: scale up
		hx = hiWord(x)
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	k += (hx >> 20) - 1023
	hx &= 0x000fffff
	i := (hx + 0x95f64) & 0x100000
	x = withHi(x, hx|(i^0x3ff00000)) // normalize x or x/2
	k += i >> 20
	f := x - 1.0
	dk := float64(k)
	if (0x000fffff & (2 + hx)) < 3 { // |f| < 2**-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			return float64(dk*fdLn2Hi) + float64(dk*fdLn2Lo)
		}
		r := float64(float64(f*f) * (0.5 - float64(0.33333333333333333*f)))
		if k == 0 {
			return f - r
		}
		return float64(dk*fdLn2Hi) - ((r - float64(dk*fdLn2Lo)) - f)
	}
	s := f / (2.0 + f)
	z := float64(s * s)
	i = hx - 0x6147a
	w := float64(z * z)
	j := 0x6b851 - hx
	t1 := float64(w * (fdLg2 + float64(w*(fdLg4+float64(w*fdLg6)))))
	t2 := float64(z * (fdLg1 + float64(w*(fdLg3+float64(w*(fdLg5+float64(w*fdLg7)))))))
	i |= j
	r := t2 + t1
	if i > 0 {
		hfsq := float64(float64(0.5*f) * f)
		if k == 0 {
			return f - (hfsq - float64(s*(hfsq+r)))
		}
		return float64(dk*fdLn2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(dk*fdLn2Lo))) - f)
	}
	if k == 0 {
		return f - float64(s*(f-r))
	}
	return float64(dk*fdLn2Hi) - ((float64(s*(f-r)) - float64(dk*fdLn2Lo)) - f)
}

// strictLog10 is StrictMath.log10 (e_log10.c).
func strictLog10(x float64) float64 {
	const (
		ivln10    = 4.34294481903251816668e-01 // 0x3FDBCB7B 1526E50E
		log10_2hi = 3.01029995663611771306e-01 // 0x3FD34413 509F6000
		log10_2lo = 3.69423907715893078616e-13 // 0x3D59FEF3 11F12B36
	)
	hx := hiWord(x)
	lx := loWord(x)
	var k int32
	if hx < 0x00100000 {
		if (hx&0x7fffffff)|int32(lx) == 0 {
			return -fdInf
		}
		if hx < 0 {
			return fdNaN
		}
		k -= 54
		x *= fdTwo54
		hx = hiWord(x)
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	k += (hx >> 20) - 1023
	i := int32(uint32(k) >> 31)
	hx = (hx & 0x000fffff) | ((0x3ff - i) << 20)
	y := float64(k + i)
	x = withHi(x, hx)
	z := float64(y*log10_2lo) + float64(ivln10*strictLog(x))
	return z + float64(y*log10_2hi)
}

// strictLog1p is StrictMath.log1p (s_log1p.c).
func strictLog1p(x float64) float64 {
	hx := hiWord(x)
	ax := hx & 0x7fffffff
	k := int32(1)
	var f, c float64
	var hu int32
	if hx < 0x3FDA827A { // x < 0.41422
		if ax >= 0x3ff00000 { // x <= -1.0
			if x == -1.0 {
				return -fdInf
			}
			return fdNaN
		}
		if ax < 0x3e200000 { // |x| < 2**-29
			if ax < 0x3c900000 { // |x| < 2**-54
				return x
			}
			return x - float64(float64(x*x)*0.5)
		}
		if hx > 0 || hx <= int32(-0x402d413d) { // -0.2929 < x < 0.41422 (hx <= 0xbfd2bec3)
			k, f, hu = 0, x, 1
		}
	}
	if hx >= 0x7ff00000 {
		return x + x
	}
	if k != 0 {
		var u float64
		if hx < 0x43400000 {
			u = 1.0 + x
			hu = hiWord(u)
			k = (hu >> 20) - 1023
			if k > 0 {
				c = 1.0 - (u - x)
			} else {
				c = x - (u - 1.0)
			}
			c /= u
		} else {
			u = x
			hu = hiWord(u)
			k = (hu >> 20) - 1023
			c = 0
		}
		hu &= 0x000fffff
		if hu < 0x6a09e {
			u = withHi(u, hu|0x3ff00000) // normalize u
		} else {
			k++
			u = withHi(u, hu|0x3fe00000) // normalize u/2
			hu = (0x00100000 - hu) >> 2
		}
		f = u - 1.0
	}
	hfsq := float64(float64(0.5*f) * f)
	dk := float64(k)
	if hu == 0 { // |f| < 2**-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			c += float64(dk * fdLn2Lo)
			return float64(dk*fdLn2Hi) + c
		}
		r := float64(hfsq * (1.0 - float64(0.66666666666666666*f)))
		if k == 0 {
			return f - r
		}
		return float64(dk*fdLn2Hi) - ((r - (float64(dk*fdLn2Lo) + c)) - f)
	}
	s := f / (2.0 + f)
	z := float64(s * s)
	r := float64(z * (fdLg1 + float64(z*(fdLg2+float64(z*(fdLg3+float64(z*(fdLg4+float64(z*(fdLg5+float64(z*(fdLg6+float64(z*fdLg7)))))))))))))
	if k == 0 {
		return f - (hfsq - float64(s*(hfsq+r)))
	}
	return float64(dk*fdLn2Hi) - ((hfsq - (float64(s*(hfsq+r)) + (float64(dk*fdLn2Lo) + c))) - f)
}

// strictSinh is StrictMath.sinh (e_sinh.c).
func strictSinh(x float64) float64 {
	const shuge = 1.0e307
	jx := hiWord(x)
	ix := jx & 0x7fffffff
	if ix >= 0x7ff00000 {
		return x + x
	}
	h := 0.5
	if jx < 0 {
		h = -h
	}
	ax := math.Abs(x)
	if ix < 0x40360000 { // |x| < 22
		if ix < 0x3e300000 { // |x| < 2**-28
			return x
		}
		t := strictExpm1(ax)
		if ix < 0x3ff00000 {
			return float64(h * (float64(2.0*t) - float64(t*t)/(t+1)))
		}
		return float64(h * (t + t/(t+1)))
	}
	if ix < 0x40862E42 { // |x| < log(maxdouble)
		return float64(h * strictExp(ax))
	}
	lx := loWord(x)
	if ix < 0x408633CE || (ix == 0x408633ce && lx <= 0x8fb9f87d) {
		w := strictExp(0.5 * ax)
		t := float64(h * w)
		return float64(t * w)
	}
	return x * shuge // overflow
}

// strictCosh is StrictMath.cosh (e_cosh.c).
func strictCosh(x float64) float64 {
	ix := hiWord(x) & 0x7fffffff
	if ix >= 0x7ff00000 {
		return x * x
	}
	ax := math.Abs(x)
	if ix < 0x3fd62e43 { // |x| < 0.5 ln2
		t := strictExpm1(ax)
		w := 1 + t
		if ix < 0x3c800000 {
			return w
		}
		return 1 + float64(t*t)/(w+w)
	}
	if ix < 0x40360000 { // |x| < 22
		t := strictExp(ax)
		return float64(0.5*t) + 0.5/t
	}
	if ix < 0x40862E42 {
		return float64(0.5 * strictExp(ax))
	}
	lx := loWord(x)
	if ix < 0x408633CE || (ix == 0x408633ce && lx <= 0x8fb9f87d) {
		w := strictExp(0.5 * ax)
		t := float64(0.5 * w)
		return float64(t * w)
	}
	return fdInf
}

// strictTanh is StrictMath.tanh (s_tanh.c).
func strictTanh(x float64) float64 {
	jx := hiWord(x)
	ix := jx & 0x7fffffff
	if ix >= 0x7ff00000 {
		if jx >= 0 {
			return 1/x + 1 // +1 for +Inf, NaN for NaN
		}
		return 1/x - 1
	}
	var z float64
	if ix < 0x40360000 { // |x| < 22
		if ix < 0x3c800000 { // |x| < 2**-55
			return x * (1 + x)
		}
		if ix >= 0x3ff00000 { // |x| >= 1
			t := strictExpm1(2 * math.Abs(x))
			z = 1 - 2/(t+2)
		} else {
			t := strictExpm1(-2 * math.Abs(x))
			z = -t / (t + 2)
		}
	} else {
		z = 1 // 1 - tiny
	}
	if jx >= 0 {
		return z
	}
	return -z
}

var fdAtanHi = [4]float64{
	4.63647609000806093515e-01, // atan(0.5)hi 0x3FDDAC67 0561BB4F
	7.85398163397448278999e-01, // atan(1.0)hi 0x3FE921FB 54442D18
	9.82793723247329054082e-01, // atan(1.5)hi 0x3FEF730B D281F69B
	1.57079632679489655800e+00, // atan(inf)hi 0x3FF921FB 54442D18
}

var fdAtanLo = [4]float64{
	2.26987774529616870924e-17, // 0x3C7A2B7F 222F65E2
	3.06161699786838301793e-17, // 0x3C81A626 33145C07
	1.39033110312309984516e-17, // 0x3C700788 7AF0CBBD
	6.12323399573676603587e-17, // 0x3C91A626 33145C07
}

const (
	fdAT0  = 3.33333333333329318027e-01  // 0x3FD55555 5555550D
	fdAT1  = -1.99999999998764832476e-01 // 0xBFC99999 9998EBC4
	fdAT2  = 1.42857142725034663711e-01  // 0x3FC24924 920083FF
	fdAT3  = -1.11111104054623557880e-01 // 0xBFBC71C6 FE231671
	fdAT4  = 9.09088713343650656196e-02  // 0x3FB745CD C54C206E
	fdAT5  = -7.69187620504482999495e-02 // 0xBFB3B0F2 AF749A6D
	fdAT6  = 6.66107313738753120669e-02  // 0x3FB10D66 A0D03D51
	fdAT7  = -5.83357013379057348645e-02 // 0xBFADDE2D 52DEFD9A
	fdAT8  = 4.97687799461593236017e-02  // 0x3FA97B4B 24760DEB
	fdAT9  = -3.65315727442169155270e-02 // 0xBFA2B444 2C6A6C2F
	fdAT10 = 1.62858201153657823623e-02  // 0x3F90AD3A E322DA11
)

// strictAtan is StrictMath.atan (s_atan.c).
func strictAtan(x float64) float64 {
	hx := hiWord(x)
	ix := hx & 0x7fffffff
	id := -1
	if ix >= 0x44100000 { // |x| >= 2^66
		if ix > 0x7ff00000 || (ix == 0x7ff00000 && loWord(x) != 0) {
			return x + x // NaN
		}
		if hx > 0 {
			return fdAtanHi[3] + fdAtanLo[3]
		}
		return -fdAtanHi[3] - fdAtanLo[3]
	}
	if ix < 0x3fdc0000 { // |x| < 0.4375
		if ix < 0x3e200000 { // |x| < 2^-29
			return x
		}
	} else {
		x = math.Abs(x)
		if ix < 0x3ff30000 { // |x| < 1.1875
			if ix < 0x3fe60000 { // 7/16 <= |x| < 11/16
				id = 0
				x = (float64(2.0*x) - 1) / (2.0 + x)
			} else { // 11/16 <= |x| < 19/16
				id = 1
				x = (x - 1) / (x + 1)
			}
		} else {
			if ix < 0x40038000 { // |x| < 2.4375
				id = 2
				x = (x - 1.5) / (1 + float64(1.5*x))
			} else { // 2.4375 <= |x| < 2^66
				id = 3
				x = -1.0 / x
			}
		}
	}
	z := float64(x * x)
	w := float64(z * z)
	s1 := float64(z * (fdAT0 + float64(w*(fdAT2+float64(w*(fdAT4+float64(w*(fdAT6+float64(w*(fdAT8+float64(w*fdAT10)))))))))))
	s2 := float64(w * (fdAT1 + float64(w*(fdAT3+float64(w*(fdAT5+float64(w*(fdAT7+float64(w*fdAT9)))))))))
	if id < 0 {
		return x - float64(x*(s1+s2))
	}
	z = fdAtanHi[id] - ((float64(x*(s1+s2)) - fdAtanLo[id]) - x)
	if hx < 0 {
		return -z
	}
	return z
}

const (
	fdPi    = 3.1415926535897931160e+00  // 0x400921FB 54442D18
	fdPiO2  = 1.5707963267948965580e+00  // 0x3FF921FB 54442D18
	fdPiO4  = 7.8539816339744827900e-01  // 0x3FE921FB 54442D18
	fdPiLo  = 1.2246467991473531772e-16  // 0x3CA1A626 33145C07
	fdPio2L = 6.12323399573676603587e-17 // 0x3C91A626 33145C07
)

// strictAtan2 is StrictMath.atan2 (e_atan2.c).
func strictAtan2(y, x float64) float64 {
	if x != x || y != y {
		return x + y
	}
	hx, lx := hiWord(x), loWord(x)
	hy, ly := hiWord(y), loWord(y)
	ix, iy := hx&0x7fffffff, hy&0x7fffffff
	if hx == 0x3ff00000 && lx == 0 { // x = 1.0
		return strictAtan(y)
	}
	m := (uint32(hy)>>31)&1 | (uint32(hx)>>30)&2 // 2*sign(x)+sign(y)
	if iy|int32(ly) == 0 {                       // y = 0
		switch m {
		case 0, 1:
			return y
		case 2:
			return fdPi
		default:
			return -fdPi
		}
	}
	if ix|int32(lx) == 0 { // x = 0
		if hy < 0 {
			return -fdPiO2
		}
		return fdPiO2
	}
	if ix == 0x7ff00000 { // x is Inf
		if iy == 0x7ff00000 {
			switch m {
			case 0:
				return fdPiO4
			case 1:
				return -fdPiO4
			case 2:
				return fdThreePiO4
			default:
				return -fdThreePiO4
			}
		}
		switch m {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return fdPi
		default:
			return -fdPi
		}
	}
	if iy == 0x7ff00000 { // y is Inf
		if hy < 0 {
			return -fdPiO2
		}
		return fdPiO2
	}
	k := (iy - ix) >> 20
	var z float64
	switch {
	case k > 60: // |y/x| > 2**60
		z = fdPiO2 + 0.5*fdPiLo
	case hx < 0 && k < -60: // |y|/x < -2**60
		z = 0
	default:
		z = strictAtan(math.Abs(y / x))
	}
	switch m {
	case 0:
		return z
	case 1:
		return -z
	case 2:
		return fdPi - (z - fdPiLo)
	default:
		return (z - fdPiLo) - fdPi
	}
}

// fdThreePiO4 is fdlibm's 3.0*pi_o_4 evaluated in double arithmetic (exact: pi_o_4's
// significand ends in three zero bits).
var fdThreePiO4 = 3.0 * func() float64 { return fdPiO4 }()

const (
	fdPS0 = 1.66666666666666657415e-01  // 0x3FC55555 55555555
	fdPS1 = -3.25565818622400915405e-01 // 0xBFD4D612 03EB6F7D
	fdPS2 = 2.01212532134862925881e-01  // 0x3FC9C155 0E884455
	fdPS3 = -4.00555345006794114027e-02 // 0xBFA48228 B5688F3B
	fdPS4 = 7.91534994289814532176e-04  // 0x3F49EFE0 7501B288
	fdPS5 = 3.47933107596021167570e-05  // 0x3F023DE1 0DFDF709
	fdQS1 = -2.40339491173441421878e+00 // 0xC0033A27 1C8A2D4B
	fdQS2 = 2.02094576023350569471e+00  // 0x40002AE5 9C598AC8
	fdQS3 = -6.88283971605453293030e-01 // 0xBFE6066C 1B8D0159
	fdQS4 = 7.70381505559019352791e-02  // 0x3FB3B8C5 B12E9282
)

// asinPQ returns fdlibm's rational approximation p(t)/q(t) pieces for asin and acos.
func asinPQ(t float64) (p, q float64) {
	p = float64(t * (fdPS0 + float64(t*(fdPS1+float64(t*(fdPS2+float64(t*(fdPS3+float64(t*(fdPS4+float64(t*fdPS5)))))))))))
	q = 1 + float64(t*(fdQS1+float64(t*(fdQS2+float64(t*(fdQS3+float64(t*fdQS4)))))))
	return
}

// strictAsin is StrictMath.asin (e_asin.c).
func strictAsin(x float64) float64 {
	hx := hiWord(x)
	ix := hx & 0x7fffffff
	if ix >= 0x3ff00000 { // |x| >= 1
		if (ix-0x3ff00000)|int32(loWord(x)) == 0 {
			return float64(x*fdPiO2) + float64(x*fdPio2L) // asin(+-1) = +-pi/2
		}
		return fdNaN
	}
	if ix < 0x3fe00000 { // |x| < 0.5
		if ix < 0x3e400000 { // |x| < 2**-27
			return x
		}
		t := float64(x * x)
		p, q := asinPQ(t)
		w := p / q
		return x + float64(x*w)
	}
	w := 1 - math.Abs(x)
	t := float64(w * 0.5)
	p, q := asinPQ(t)
	s := math.Sqrt(t)
	if ix >= 0x3FEF3333 { // |x| > 0.975
		w = p / q
		t = fdPiO2 - (float64(2.0*(s+float64(s*w))) - fdPio2L)
	} else {
		w = withLo(s, 0)
		c := (t - float64(w*w)) / (s + w)
		r := p / q
		p = float64(float64(2.0*s)*r) - (fdPio2L - float64(2.0*c))
		q = fdPiO4 - float64(2.0*w)
		t = fdPiO4 - (p - q)
	}
	if hx > 0 {
		return t
	}
	return -t
}

// strictAcos is StrictMath.acos (e_acos.c).
func strictAcos(x float64) float64 {
	hx := hiWord(x)
	ix := hx & 0x7fffffff
	if ix >= 0x3ff00000 { // |x| >= 1
		if (ix-0x3ff00000)|int32(loWord(x)) == 0 {
			if hx > 0 {
				return 0
			}
			return fdPi + 2.0*fdPio2L
		}
		return fdNaN
	}
	if ix < 0x3fe00000 { // |x| < 0.5
		if ix <= 0x3c600000 { // |x| < 2**-57
			return fdPiO2 + fdPio2L
		}
		z := float64(x * x)
		p, q := asinPQ(z)
		r := p / q
		return fdPiO2 - (x - (fdPio2L - float64(x*r)))
	}
	if hx < 0 { // x < -0.5
		z := float64((1 + x) * 0.5)
		p, q := asinPQ(z)
		s := math.Sqrt(z)
		r := p / q
		w := float64(r*s) - fdPio2L
		return fdPi - float64(2.0*(s+w))
	}
	z := float64((1 - x) * 0.5) // x > 0.5
	s := math.Sqrt(z)
	df := withLo(s, 0)
	c := (z - float64(df*df)) / (s + df)
	p, q := asinPQ(z)
	r := p / q
	w := float64(r*s) + c
	return float64(2.0 * (df + w))
}

// strictCbrt is StrictMath.cbrt (s_cbrt.c of fdlibm 5.3).
func strictCbrt(x float64) float64 {
	const (
		b1 = 715094163                   // (682-0.03306235651)*2**20
		b2 = 696219795                   // (664-0.03306235651)*2**20
		c  = 5.42857142857142815906e-01  // 19/35
		d  = -7.05306122448979611050e-01 // -864/1225
		e  = 1.41428571428571436819e+00  // 99/70
		f  = 1.60714285714285720630e+00  // 45/28
		g  = 3.57142857142857150787e-01  // 5/14
	)
	hx := hiWord(x)
	sign := hx & math.MinInt32
	hx ^= sign
	if hx >= 0x7ff00000 {
		return x + x // NaN, Inf
	}
	if hx|int32(loWord(x)) == 0 {
		return x // +-0
	}
	x = withHi(x, hx) // |x|
	var t float64
	if hx < 0x00100000 { // subnormal
		t = fromWords(0x43500000, 0) // 2**54
		t *= x
		t = withHi(t, hiWord(t)/3+b2)
	} else {
		t = fromWords(hx/3+b1, 0)
	}
	// new cbrt to 23 bits
	r := float64(t*t) / x
	s := c + float64(r*t)
	t *= g + f/((s+e)+d/s)
	// chop to 20 bits and make it larger than cbrt(x)
	t = fromWords(hiWord(t)+1, 0)
	// one Newton step to 53 bits
	s = float64(t * t) // exact
	r = x / s
	w := t + t
	r = (r - t) / (w + r)
	t = t + float64(t*r)
	return withHi(t, hiWord(t)|sign)
}

// strictHypot is StrictMath.hypot (e_hypot.c).
func strictHypot(x, y float64) float64 {
	ha := hiWord(x) & 0x7fffffff
	hb := hiWord(y) & 0x7fffffff
	a, b := x, y
	if hb > ha {
		a, b = y, x
		ha, hb = hb, ha
	}
	a = withHi(a, ha)      // |a|
	b = withHi(b, hb)      // |b|
	if ha-hb > 0x3c00000 { // a/b > 2**60
		return a + b
	}
	k := int32(0)
	if ha > 0x5f300000 { // a > 2**500
		if ha >= 0x7ff00000 { // Inf or NaN
			w := a + b
			if (ha&0xfffff)|int32(loWord(a)) == 0 {
				w = a
			}
			if (hb^0x7ff00000)|int32(loWord(b)) == 0 {
				w = b
			}
			return w
		}
		// scale a and b by 2**-600
		ha -= 0x25800000
		hb -= 0x25800000
		k += 600
		a = withHi(a, ha)
		b = withHi(b, hb)
	}
	if hb < 0x20b00000 { // b < 2**-500
		if hb <= 0x000fffff { // subnormal b or 0
			if hb|int32(loWord(b)) == 0 {
				return a
			}
			t1 := fromWords(0x7fd00000, 0) // 2**1022
			b *= t1
			a *= t1
			k -= 1022
		} else { // scale a and b by 2**600
			ha += 0x25800000
			hb += 0x25800000
			k -= 600
			a = withHi(a, ha)
			b = withHi(b, hb)
		}
	}
	w := a - b
	if w > b {
		t1 := fromWords(ha, 0)
		t2 := a - t1
		w = math.Sqrt(float64(t1*t1) - (float64(b*(-b)) - float64(t2*(a+t1))))
	} else {
		a = a + a
		y1 := fromWords(hb, 0)
		y2 := b - y1
		t1 := fromWords(ha+0x00100000, 0)
		t2 := a - t1
		w = math.Sqrt(float64(t1*y1) - (float64(w*(-w)) - (float64(t1*y2) + float64(t2*b))))
	}
	if k != 0 {
		return float64(addExp(1.0, k) * w)
	}
	return w
}

// strictPow is StrictMath.pow (e_pow.c).
func strictPow(x, y float64) float64 {
	const (
		two53   = 9007199254740992.0          // 0x43400000 00000000
		pL1     = 5.99999999999994648725e-01  // 0x3FE33333 33333303
		pL2     = 4.28571428578550184252e-01  // 0x3FDB6DB6 DB6FABFF
		pL3     = 3.33333329818377432918e-01  // 0x3FD55555 518F264D
		pL4     = 2.72728123808534006489e-01  // 0x3FD17460 A91D4101
		pL5     = 2.30660745775561754067e-01  // 0x3FCD864A 93C9DB65
		pL6     = 2.06975017800338417784e-01  // 0x3FCA7E28 4A454EEF
		lg2     = 6.93147180559945286227e-01  // 0x3FE62E42 FEFA39EF
		lg2H    = 6.93147182464599609375e-01  // 0x3FE62E43 00000000
		lg2L    = -1.90465429995776804525e-09 // 0xBE205C61 0CA86C39
		ovt     = 8.0085662595372944372e-17   // -(1024-log2(ovfl+.5ulp))
		cp      = 9.61796693925975554329e-01  // 0x3FEEC709 DC3A03FD = 2/(3ln2)
		cpH     = 9.61796700954437255859e-01  // 0x3FEEC709 E0000000
		cpL     = -7.02846165095275826516e-09 // 0xBE3E2FE0 145B01F5
		ivln2   = 1.44269504088896338700e+00  // 0x3FF71547 652B82FE
		ivln2H  = 1.44269502162933349609e+00  // 0x3FF71547 60000000
		ivln2L  = 1.92596299112661746887e-08  // 0x3E54AE0B F85DDF44
		dpH1    = 5.84962487220764160156e-01  // 0x3FE2B803 40000000
		dpL1    = 1.35003920212974897128e-08  // 0x3E4CFDEB 43CFD006
		third   = 0.3333333333333333333333
		quarter = 0.25
	)
	hx, lx := hiWord(x), loWord(x)
	hy, ly := hiWord(y), loWord(y)
	ix, iy := hx&0x7fffffff, hy&0x7fffffff

	if iy|int32(ly) == 0 { // x**0 = 1
		return 1
	}
	if ix > 0x7ff00000 || (ix == 0x7ff00000 && lx != 0) || iy > 0x7ff00000 || (iy == 0x7ff00000 && ly != 0) {
		return x + y // NaN
	}
	// yisint: 0 = y not an integer, 1 = odd integer, 2 = even integer (only for x < 0).
	yisint := 0
	if hx < 0 {
		if iy >= 0x43400000 {
			yisint = 2
		} else if iy >= 0x3ff00000 {
			k := (iy >> 20) - 0x3ff
			if k > 20 {
				j := ly >> uint(52-k)
				if j<<uint(52-k) == ly {
					yisint = 2 - int(j&1)
				}
			} else if ly == 0 {
				j := iy >> uint(20-k)
				if j<<uint(20-k) == iy {
					yisint = 2 - int(j&1)
				}
			}
		}
	}
	if ly == 0 {
		if iy == 0x7ff00000 { // y is +-inf
			if (ix-0x3ff00000)|int32(lx) == 0 {
				return y - y // (+-1)**+-inf is NaN
			} else if ix >= 0x3ff00000 { // (|x|>1)**+-inf = inf, 0
				if hy >= 0 {
					return y
				}
				return 0
			}
			if hy < 0 { // (|x|<1)**-,+inf = inf, 0
				return -y
			}
			return 0
		}
		if iy == 0x3ff00000 { // y is +-1
			if hy < 0 {
				return 1 / x
			}
			return x
		}
		if hy == 0x40000000 { // y is 2
			return x * x
		}
		if hy == 0x3fe00000 && hx >= 0 { // y is 0.5, x >= +0
			return math.Sqrt(x)
		}
	}
	ax := math.Abs(x)
	if lx == 0 && (ix == 0x7ff00000 || ix == 0 || ix == 0x3ff00000) { // x is +-0, +-inf, +-1
		z := ax
		if hy < 0 {
			z = 1 / z
		}
		if hx < 0 {
			if (ix-0x3ff00000)|int32(yisint) == 0 {
				z = fdNaN // (-1)**non-int
			} else if yisint == 1 {
				z = -z
			}
		}
		return z
	}
	n := int32(uint32(hx)>>31) ^ 1 // fdlibm's (hx>>31)+1: 0 for negative x, 1 otherwise
	if n|int32(yisint) == 0 {      // (x<0)**(non-int)
		return fdNaN
	}
	s := 1.0 // sign of the result
	if n|int32(yisint-1) == 0 {
		s = -1 // (-ve)**(odd int)
	}

	var t1, t2 float64
	if iy > 0x41e00000 { // |y| > 2**31
		if iy > 0x43f00000 { // |y| > 2**64: must over/underflow
			if ix <= 0x3fefffff {
				if hy < 0 {
					return fdInf
				}
				return 0
			}
			if ix >= 0x3ff00000 {
				if hy > 0 {
					return fdInf
				}
				return 0
			}
		}
		// over/underflow if x is not close to one
		if ix < 0x3fefffff {
			if hy < 0 {
				return s * fdInf
			}
			return s * 0
		}
		if ix > 0x3ff00000 {
			if hy > 0 {
				return s * fdInf
			}
			return s * 0
		}
		// |1-x| <= 2**-20: log(x) by x-x^2/2+x^3/3-x^4/4
		t := ax - 1
		w := float64(float64(t*t) * (0.5 - float64(t*(third-float64(t*quarter)))))
		u := float64(ivln2H * t)
		v := float64(t*ivln2L) - float64(w*ivln2)
		t1 = withLo(u+v, 0)
		t2 = v - (t1 - u)
	} else {
		n = 0
		if ix < 0x00100000 { // subnormal x
			ax *= two53
			n -= 53
			ix = hiWord(ax)
		}
		n += (ix >> 20) - 0x3ff
		j := ix & 0x000fffff
		ix = j | 0x3ff00000 // normalize ix
		var k int32
		switch {
		case j <= 0x3988E: // |x| < sqrt(3/2)
			k = 0
		case j < 0xBB67A: // |x| < sqrt(3)
			k = 1
		default:
			k = 0
			n++
			ix -= 0x00100000
		}
		ax = withHi(ax, ix)
		bp, dpH, dpL := 1.0, 0.0, 0.0
		if k == 1 {
			bp, dpH, dpL = 1.5, dpH1, dpL1
		}
		// ss = s_h+s_l = (x-1)/(x+1) or (x-1.5)/(x+1.5)
		u := ax - bp
		v := 1 / (ax + bp)
		ss := float64(u * v)
		sH := withLo(ss, 0)
		tH := fromWords(((ix>>1)|0x20000000)+0x00080000+(k<<18), 0) // t_h = ax+bp high
		tL := ax - (tH - bp)
		sL := float64(v * ((u - float64(sH*tH)) - float64(sH*tL)))
		// log(ax)
		s2 := float64(ss * ss)
		r := float64(float64(s2*s2) * (pL1 + float64(s2*(pL2+float64(s2*(pL3+float64(s2*(pL4+float64(s2*(pL5+float64(s2*pL6)))))))))))
		r += float64(sL * (sH + ss))
		s2 = float64(sH * sH)
		tH = withLo(3.0+s2+r, 0)
		tL = r - ((tH - 3.0) - s2)
		// u+v = ss*(1+...)
		u = float64(sH * tH)
		v = float64(sL*tH) + float64(tL*ss)
		// 2/(3log2)*(ss+...)
		pH := withLo(u+v, 0)
		pL := v - (pH - u)
		zH := float64(cpH * pH)
		zL := float64(cpL*pH) + float64(pL*cp) + dpL
		// log2(ax) = (ss+..)*2/(3*log2) = n + dp_h + z_h + z_l
		t := float64(n)
		t1 = withLo(((zH+zL)+dpH)+t, 0)
		t2 = zL - (((t1 - t) - dpH) - zH)
	}

	// split y into y1+y2 and compute (y1+y2)*(t1+t2)
	y1 := withLo(y, 0)
	pL := float64((y-y1)*t1) + float64(y*t2)
	pH := float64(y1 * t1)
	z := pL + pH
	j := hiWord(z)
	i := int32(loWord(z))
	if j >= 0x40900000 { // z >= 1024
		if (j-0x40900000)|i != 0 {
			return s * fdInf
		}
		if pL+ovt > z-pH {
			return s * fdInf
		}
	} else if j&0x7fffffff >= 0x4090cc00 { // z <= -1075
		if (j-int32(-0x3f6f3400))|i != 0 { // j-0xc090cc00
			return s * 0
		}
		if pL <= z-pH {
			return s * 0
		}
	}
	// 2**(p_h+p_l)
	i = j & 0x7fffffff
	k := (i >> 20) - 0x3ff
	n = 0
	if i > 0x3fe00000 { // |z| > 0.5: n = [z+0.5]
		n = j + (0x00100000 >> uint(k+1))
		k = ((n & 0x7fffffff) >> 20) - 0x3ff // new k for n
		t := fromWords(n&^(0x000fffff>>uint(k)), 0)
		n = ((n & 0x000fffff) | 0x00100000) >> uint(20-k)
		if j < 0 {
			n = -n
		}
		pH -= t
	}
	t := withLo(pL+pH, 0)
	u := float64(t * lg2H)
	v := float64((pL-(t-pH))*lg2) + float64(t*lg2L)
	z = u + v
	w := v - (z - u)
	t = float64(z * z)
	t1 = z - float64(t*(fdP1+float64(t*(fdP2+float64(t*(fdP3+float64(t*(fdP4+float64(t*fdP5)))))))))
	r := float64(z*t1)/(t1-2) - (w + float64(z*w))
	z = 1 - (r - z)
	j = hiWord(z)
	j += n << 20
	if j>>20 <= 0 { // subnormal output
		z = math.Ldexp(z, int(n))
	} else {
		z = withHi(z, j)
	}
	return float64(s * z)
}
