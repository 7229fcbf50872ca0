package org.apache.spark.sql.bolide;

/**
 * An error raised by the Go engine: a data error (corrupt file, ANSI overflow), a refused memory
 * reservation, or a recovered Go panic. Spark fails the task and may retry it; the JVM lives.
 * When the engine reproduces a Spark error class, {@link #errorClass()} names it and
 * {@link #parametersJson()} holds its message parameters, so the adapter can rethrow Spark's own
 * exception.
 */
public class BolideNativeException extends RuntimeException {
  private final String errorClass;
  private final String parametersJson;

  public BolideNativeException(String message, String errorClass, String parametersJson) {
    super(message);
    this.errorClass = errorClass;
    this.parametersJson = parametersJson;
  }

  public String errorClass() {
    return errorClass;
  }

  public String parametersJson() {
    return parametersJson;
  }
}
