package org.apache.spark.sql.bolide

import scala.reflect.ClassTag

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD

/**
 * Jobs the adapter runs itself (gathering partial aggregates, encoding a broadcast). `RDD.collect`
 * hands the scheduler a lambda, and Spark's closure cleaner reads the bytecode of the class that
 * defines it (all of RDD) on every job: about 5 ms of a short query's driver time. A job function
 * of a named class is not a closure, so cleaning it is a check.
 */
object BolideJobs {
  /** Every element of every partition, in partition order, as `rdd.collect()`. */
  def collect[T: ClassTag](rdd: RDD[T]): Array[T] =
    rdd.sparkContext.runJob(rdd, new PartitionToArray[T], 0 until rdd.getNumPartitions).flatten

  /** The job function of `collect`. */
  final class PartitionToArray[T: ClassTag] extends ((TaskContext, Iterator[T]) => Array[T]) with Serializable {
    override def apply(context: TaskContext, it: Iterator[T]): Array[T] = it.toArray
  }
}
