package org.apache.spark.sql.bolide;

/**
 * Evaluates, for a native block, the expressions the engine has no kernel for, with Spark's own
 * code (native/expr/dispatch.go). Called by the Go engine on the task thread, once per batch and
 * dispatched expression.
 */
public interface NativeDispatcher {
  /**
   * Imports the batch of input columns at {@code inArray}/{@code inSchema} (column i holds the
   * attribute whose exprId is {@code exprIds[i]}; {@code rows} rows), evaluates expression
   * {@code id} of the block's encoding over it, and exports the result as a one-column batch into
   * {@code outArray}/{@code outSchema}. The four structs are allocated and freed by the Go side.
   */
  void eval(int id, long[] exprIds, long rows, long inArray, long inSchema, long outArray, long outSchema);
}
