package org.apache.spark

/** Access to the listener bus (private to Spark): the bench reads task metrics after a query. */
object BenchListenerBus {
  def drain(sc: SparkContext): Unit = sc.listenerBus.waitUntilEmpty()

  /**
   * Bytes of Spark's off-heap pool in use now (execution plus storage) in this JVM's executor: in
   * local mode the driver's SparkEnv is the executor's. 0 before the session exists.
   */
  def offHeapUsed(): Long = {
    val env = SparkEnv.get
    if (env == null) 0L
    else env.memoryManager.offHeapExecutionMemoryUsed + env.memoryManager.offHeapStorageMemoryUsed
  }
}
