package org.apache.spark.sql.bolide

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}

/** The JVM-side Arrow allocator: one root per JVM, a child per task. */
object BolideArrow {
  lazy val root: BufferAllocator = new RootAllocator(Long.MaxValue)

  def newTaskAllocator(name: String): BufferAllocator = root.newChildAllocator(name, 0, Long.MaxValue)
}
