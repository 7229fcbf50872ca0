// Generates golden results for Bolide's native math functions (native/expr/mathstrict.go) by
// calling exactly what Spark 4.1's mathExpressions.scala calls, on this JVM.
//
//   java GenMathGolden.java golden RANDOM_PER_FUNCTION SEED > mathgolden.txt
//   java GenMathGolden.java intrinsics   # how often Math.f differs from StrictMath.f here
//
// golden: one line per case, "Function arg1 [arg2] result", each double as its 16 hex digits
// of raw IEEE bits (result "null" where Spark returns null). Edge values first, then random
// arguments (fixed seed) spread over all magnitudes and over each function's interesting range.
import java.util.*;
import java.util.function.*;

public class GenMathGolden {
  static final double[] EDGES = {
    0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, 10.0, 100.0, 1e-300, -1e-300,
    Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, -Double.MIN_NORMAL, 2.2250738585072009E-308,
    Double.MAX_VALUE, -Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN,
    Math.PI, -Math.PI, Math.PI / 2, Math.PI / 4, Math.E, 0.1, -0.1, 1e-10, 1e-20, 1e-30, 3.7e-9,
    0.9999999999999999, 1.0000000000000002, -0.9999999999999999, -1.0000000000000002, 0.975, 0.4375,
    0.6875, 1.1875, 2.4375, 22.0, -22.0, 709.78, 709.782712893384, 710.0, -745.1, -745.2, 1e10, -1e10,
    1e300, 4.5e15, 4503599627370496.5, 2.5, -2.5, 0.49999999999999994, 1e20, 7.0, 0.3466, 1.0397,
    38.816242111356935, 0.34657359027997264, 1.0397207708399179, 2.0e-17, 1.0e19, 5e-324, 37.5,
    1.3407807929942596E154, -1.3407807929942596E154, 1.3407807929942595E154, 1e155, -1e155
  };

  interface D1 { Double f(double x); }
  interface D2 { Double f(double x, double y); }

  static final Map<String, D1> UNARY = new LinkedHashMap<>();
  static final Map<String, D2> BINARY = new LinkedHashMap<>();
  static {
    UNARY.put("Exp", x -> StrictMath.exp(x));
    UNARY.put("Expm1", x -> StrictMath.expm1(x));
    UNARY.put("Log", x -> x <= 0.0 ? null : StrictMath.log(x));
    UNARY.put("Log2", x -> x <= 0.0 ? null : StrictMath.log(x) / StrictMath.log(2));
    UNARY.put("Log10", x -> x <= 0.0 ? null : StrictMath.log10(x));
    UNARY.put("Log1p", x -> x <= -1.0 ? null : StrictMath.log1p(x));
    UNARY.put("Sinh", x -> Math.sinh(x));
    UNARY.put("Cosh", x -> Math.cosh(x));
    UNARY.put("Tanh", x -> Math.tanh(x));
    UNARY.put("Asin", x -> Math.asin(x));
    UNARY.put("Acos", x -> Math.acos(x));
    UNARY.put("Atan", x -> Math.atan(x));
    UNARY.put("Cbrt", x -> Math.cbrt(x));
    // Acosh and Asinh as Spark 4.1.3 writes them (earlier versions had only the last formula).
    UNARY.put("Acosh", x -> x >= Math.sqrt(Double.MAX_VALUE) ? StrictMath.log(2.0) + StrictMath.log(x)
        : x < 1 ? Double.NaN : StrictMath.log(x + Math.sqrt(x * x - 1.0)));
    UNARY.put("Asinh", x -> Math.abs(x) >= Math.sqrt(Double.MAX_VALUE) - 1
        ? Math.signum(x) * (StrictMath.log(2.0) + StrictMath.log(Math.abs(x)))
        : StrictMath.log(x + Math.sqrt(x * x + 1.0)));
    UNARY.put("Atanh", x -> 0.5 * (StrictMath.log1p(x) - StrictMath.log1p(-x)));
    UNARY.put("Rint", x -> Math.rint(x));
    UNARY.put("ToDegrees", x -> Math.toDegrees(x));
    UNARY.put("ToRadians", x -> Math.toRadians(x));
    BINARY.put("Atan2", (y, x) -> Math.atan2(y + 0.0, x + 0.0));
    BINARY.put("Hypot", (x, y) -> Math.hypot(x, y));
    BINARY.put("Pow", (x, y) -> StrictMath.pow(x, y));
    BINARY.put("Logarithm", (b, x) -> b <= 0.0 || x <= 0.0 ? null : StrictMath.log(x) / StrictMath.log(b));
  }

  static Random rnd;

  // A random double: raw bits, a wide log-uniform magnitude, a small range, or an integer.
  static double any() {
    switch (rnd.nextInt(6)) {
      case 0: return Double.longBitsToDouble(rnd.nextLong());
      case 1: return (rnd.nextBoolean() ? 1 : -1) * Math.pow(2, rnd.nextDouble() * 2100 - 1075);
      case 2: return (rnd.nextDouble() * 2 - 1) * Math.pow(10, rnd.nextInt(8) - 4);
      case 3: return rnd.nextInt(41) - 20;
      case 4: return (rnd.nextBoolean() ? 1 : -1) * Math.pow(2, rnd.nextDouble() * 80 - 40);
      default: return (rnd.nextDouble() * 2 - 1) * 1500;
    }
  }

  // A random argument suited to the function's interesting range.
  static double arg(String f) {
    if (rnd.nextInt(3) == 0) return any();
    switch (f) {
      case "Asin": case "Acos": case "Atanh": return rnd.nextDouble() * 2 - 1;
      case "Log1p": return rnd.nextDouble() * 3 - 1;
      case "Acosh": return rnd.nextBoolean() ? 1 + Math.pow(2, rnd.nextDouble() * 80 - 60) : Math.pow(2, rnd.nextDouble() * 1100 - 50);
      case "Asinh": return (rnd.nextBoolean() ? 1 : -1) * Math.pow(2, rnd.nextDouble() * 1100 - 50);
      case "Exp": case "Expm1": case "Sinh": case "Cosh": return (rnd.nextDouble() * 2 - 1) * 750;
      case "Tanh": return (rnd.nextDouble() * 2 - 1) * 25;
      case "Rint": return (rnd.nextDouble() * 2 - 1) * Math.pow(2, rnd.nextInt(60));
      default: return any();
    }
  }

  static String hex(double d) { return String.format("%016x", Double.doubleToRawLongBits(d)); }
  static String res(Double d) { return d == null ? "null" : hex(d); }

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("intrinsics")) { intrinsics(); return; }
    int n = Integer.parseInt(args[1]);
    rnd = new Random(Long.parseLong(args[2]));
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, D1> e : UNARY.entrySet()) {
      for (double x : EDGES) sb.append(e.getKey()).append(' ').append(hex(x)).append(' ').append(res(e.getValue().f(x))).append('\n');
      for (int i = 0; i < n; i++) {
        double x = arg(e.getKey());
        sb.append(e.getKey()).append(' ').append(hex(x)).append(' ').append(res(e.getValue().f(x))).append('\n');
      }
    }
    for (Map.Entry<String, D2> e : BINARY.entrySet()) {
      String f = e.getKey();
      for (double x : EDGES) for (int j = 0; j < EDGES.length; j += 13) {
        double y = EDGES[j];
        sb.append(f).append(' ').append(hex(x)).append(' ').append(hex(y)).append(' ').append(res(e.getValue().f(x, y))).append('\n');
      }
      for (int i = 0; i < n; i++) {
        double x = any(), y = any();
        if (f.equals("Pow")) {
          switch (rnd.nextInt(4)) {
            case 0: y = rnd.nextInt(41) - 20; break;                       // integral exponents, negative bases
            case 1: x = 1 + (rnd.nextDouble() - 0.5) * 1e-6; y = (rnd.nextDouble() - 0.5) * 1e12; break;
            case 2: x = rnd.nextDouble() * 10; y = (rnd.nextDouble() - 0.5) * 600; break;
            default: break;
          }
        }
        sb.append(f).append(' ').append(hex(x)).append(' ').append(hex(y)).append(' ').append(res(e.getValue().f(x, y))).append('\n');
      }
    }
    System.out.print(sb);
  }

  // Counts arguments where java.lang.Math.f differs from StrictMath.f after warm-up (the JIT's
  // intrinsic stubs are used by the interpreter, C1 and C2 alike on x86_64).
  static void intrinsics() {
    Map<String, DoubleUnaryOperator[]> fs = new LinkedHashMap<>();
    fs.put("sin", new DoubleUnaryOperator[] {Math::sin, StrictMath::sin});
    fs.put("cos", new DoubleUnaryOperator[] {Math::cos, StrictMath::cos});
    fs.put("tan", new DoubleUnaryOperator[] {Math::tan, StrictMath::tan});
    fs.put("exp", new DoubleUnaryOperator[] {Math::exp, StrictMath::exp});
    fs.put("log", new DoubleUnaryOperator[] {Math::log, StrictMath::log});
    fs.put("log10", new DoubleUnaryOperator[] {Math::log10, StrictMath::log10});
    fs.put("asin", new DoubleUnaryOperator[] {Math::asin, StrictMath::asin});
    fs.put("acos", new DoubleUnaryOperator[] {Math::acos, StrictMath::acos});
    fs.put("atan", new DoubleUnaryOperator[] {Math::atan, StrictMath::atan});
    fs.put("sinh", new DoubleUnaryOperator[] {Math::sinh, StrictMath::sinh});
    fs.put("cosh", new DoubleUnaryOperator[] {Math::cosh, StrictMath::cosh});
    fs.put("tanh", new DoubleUnaryOperator[] {Math::tanh, StrictMath::tanh});
    fs.put("expm1", new DoubleUnaryOperator[] {Math::expm1, StrictMath::expm1});
    fs.put("log1p", new DoubleUnaryOperator[] {Math::log1p, StrictMath::log1p});
    fs.put("cbrt", new DoubleUnaryOperator[] {Math::cbrt, StrictMath::cbrt});
    fs.put("rint", new DoubleUnaryOperator[] {Math::rint, StrictMath::rint});
    fs.put("pow(x,2.5)", new DoubleUnaryOperator[] {x -> Math.pow(x, 2.5), x -> StrictMath.pow(x, 2.5)});
    fs.put("atan2(x,0.7)", new DoubleUnaryOperator[] {x -> Math.atan2(x, 0.7), x -> StrictMath.atan2(x, 0.7)});
    fs.put("hypot(x,0.7)", new DoubleUnaryOperator[] {x -> Math.hypot(x, 0.7), x -> StrictMath.hypot(x, 0.7)});
    System.out.println("java " + System.getProperty("java.version") + " " + System.getProperty("os.arch"));
    for (Map.Entry<String, DoubleUnaryOperator[]> e : fs.entrySet()) {
      rnd = new Random(1);
      int diff = 0, n = 2_000_000;
      for (int i = 0; i < n; i++) {
        double x = (rnd.nextDouble() * 2 - 1) * Math.pow(2, rnd.nextInt(12) - 4);
        double a = e.getValue()[0].applyAsDouble(x), b = e.getValue()[1].applyAsDouble(x);
        if (Double.doubleToLongBits(a) != Double.doubleToLongBits(b)) diff++;
      }
      System.out.printf("%-14s Math != StrictMath on %d of %d arguments%n", e.getKey(), diff, n);
    }
  }
}
