package org.apache.spark.sql.bolide.shuffle

import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue}

import org.apache.spark.{ShuffleDependency, SparkConf, SparkEnv, TaskContext}
import org.apache.spark.internal.Logging
import org.apache.spark.internal.config
import org.apache.spark.shuffle._
import org.apache.spark.shuffle.sort.SortShuffleManager

/**
 * Bolide's shuffle manager (`spark.shuffle.manager=org.apache.spark.sql.bolide.shuffle.BolideShuffleManager`).
 * Shuffles planned by Bolide (a BolideShuffleDependency) are written and read natively, as
 * compressed Arrow blocks; every other shuffle (RDD jobs, exchanges that stay in Spark) is Spark's
 * sort shuffle, which this manager wraps. Both share Spark's IndexShuffleBlockResolver, so block
 * fetching, the external shuffle service and map output tracking are Spark's own.
 */
class BolideShuffleManager(conf: SparkConf) extends ShuffleManager with Logging {
  private val sort = new SortShuffleManager(conf)

  /** Map task ids per native shuffle, to delete their files when the shuffle is unregistered. */
  private val nativeMapTasks = new ConcurrentHashMap[Int, ConcurrentLinkedQueue[java.lang.Long]]()

  override def registerShuffle[K, V, C](
      shuffleId: Int,
      dependency: ShuffleDependency[K, V, C]): ShuffleHandle = dependency match {
    case d: BolideShuffleDependency => new BolideShuffleHandle(shuffleId, d)
    case _ => sort.registerShuffle(shuffleId, dependency)
  }

  override def getWriter[K, V](
      handle: ShuffleHandle,
      mapId: Long,
      context: TaskContext,
      metrics: ShuffleWriteMetricsReporter): ShuffleWriter[K, V] = handle match {
    case h: BolideShuffleHandle =>
      nativeMapTasks.computeIfAbsent(h.shuffleId, _ => new ConcurrentLinkedQueue[java.lang.Long]())
        .add(mapId)
      new BolideShuffleWriter(h, mapId, context, metrics, sort.shuffleBlockResolver)
        .asInstanceOf[ShuffleWriter[K, V]]
    case _ => sort.getWriter(handle, mapId, context, metrics)
  }

  override def getReader[K, C](
      handle: ShuffleHandle,
      startMapIndex: Int,
      endMapIndex: Int,
      startPartition: Int,
      endPartition: Int,
      context: TaskContext,
      metrics: ShuffleReadMetricsReporter): ShuffleReader[K, C] = handle match {
    case h: BolideShuffleHandle =>
      val blocks = SparkEnv.get.mapOutputTracker.getMapSizesByExecutorId(
        h.shuffleId, startMapIndex, endMapIndex, startPartition, endPartition)
      // Frames are self-delimiting, so a batch fetch (the contiguous partitions of one map output
      // as one stream) reads like separate blocks.
      val batchFetch = SortShuffleManager.canUseBatchFetch(startPartition, endPartition, context) &&
        !SparkEnv.get.conf.get(config.SHUFFLE_USE_OLD_FETCH_PROTOCOL)
      new BolideShuffleReader(h, blocks, context, metrics, batchFetch).asInstanceOf[ShuffleReader[K, C]]
    case _ => sort.getReader(handle, startMapIndex, endMapIndex, startPartition, endPartition, context, metrics)
  }

  override def unregisterShuffle(shuffleId: Int): Boolean = {
    Option(nativeMapTasks.remove(shuffleId)).foreach { ids =>
      ids.forEach(id => sort.shuffleBlockResolver.removeDataByMap(shuffleId, id))
    }
    sort.unregisterShuffle(shuffleId)
  }

  override def shuffleBlockResolver: IndexShuffleBlockResolver = sort.shuffleBlockResolver

  override def stop(): Unit = sort.stop()
}

object BolideShuffleManager {
  val ClassName: String = classOf[BolideShuffleManager].getName

  /**
   * Why a shuffle cannot be native in this application, or None when it can: the planner asks on
   * the driver, where SparkEnv's manager is the one the executors use.
   */
  def unavailableReason: Option[String] = {
    val env = SparkEnv.get
    if (env == null) Some("no SparkEnv")
    else if (!env.shuffleManager.isInstanceOf[BolideShuffleManager]) {
      Some(s"the native shuffle needs spark.shuffle.manager=$ClassName")
    } else if (env.conf.get(config.IO_ENCRYPTION_ENABLED)) {
      Some("spark.io.encryption.enabled=true: native shuffle files are not encrypted")
    } else None
  }
}
