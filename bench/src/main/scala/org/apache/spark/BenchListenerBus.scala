package org.apache.spark

/** Access to the listener bus (private to Spark): the bench reads task metrics after a query. */
object BenchListenerBus {
  def drain(sc: SparkContext): Unit = sc.listenerBus.waitUntilEmpty()
}
