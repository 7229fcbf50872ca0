package org.apache.spark.sql.bolide;

/**
 * Evaluates, for a native block, the expressions the engine has no kernel for, with Spark's own
 * code (native/expr/dispatch.go). Called by the Go engine on the task thread, once per batch and
 * dispatched expression.
 */
public interface NativeDispatcher {
  /**
   * Imports the batch of input columns at {@code inArray} (column i holds the attribute whose
   * exprId is {@code exprIds[i]}; {@code rows} rows), evaluates expression {@code id} of the
   * block's encoding over it, and exports the result as one array into {@code outArray}. The
   * schemas cross once per expression and task: {@code inSchema} (with {@code exprIds}) is nonzero
   * on the first batch and whenever the input's Arrow types change, else 0 and null (the last one
   * holds); {@code outSchema} is nonzero on the first batch only (the result's schema is exported
   * there, else not at all). The structs are allocated and freed by the Go side; whatever this
   * side imports it releases before returning. When {@code outData} is nonzero the result is
   * fixed-width ({@code outBits} a value, 1 for booleans) and Go passes its own validity and data
   * buffers for {@code rows} values: this side may write the values there, keeping no reference,
   * and return the null count; otherwise (or if it exports instead) it returns -1.
   */
  long eval(int id, long[] exprIds, long rows, long inArray, long inSchema, long outArray, long outSchema,
      long outValidity, long outData, long outBits);
}
