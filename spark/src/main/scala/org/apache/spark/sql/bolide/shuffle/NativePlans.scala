package org.apache.spark.sql.bolide.shuffle

import com.fasterxml.jackson.databind.ObjectMapper

import org.apache.spark.sql.types.StructType

/**
 * The two fixed native blocks of exchanges, as the wire form the Go side reads (native/plan): a
 * decoder of shuffle frames (an input leaf fed by a NativeFrameSource) and the single-partition
 * encoder a broadcast's build side goes through.
 */
object NativePlans {
  private val mapper = new ObjectMapper()

  private def attrs(schema: StructType): String = schema.fields.map { f =>
    s"""{"name":${mapper.writeValueAsString(f.name)},"exprId":-1,"dataType":${f.dataType.json},""" +
      s""""nullable":${f.nullable}}"""
  }.mkString("[", ",", "]")

  private def inputLeaf(id: Int, name: String, schema: StructType): String =
    s"""{"id":$id,"class":"$name","nodeName":"$name","output":${attrs(schema)},"fields":{},""" +
      s""""children":[],"input":0}"""

  /** Decodes the frames of input 0 into batches of `schema`. */
  def read(schema: StructType): String = inputLeaf(0, "BolideShuffleRead", schema)

  /** Encodes input 0 as one partition of frames (a broadcast's blocks). */
  def broadcastEncode(schema: StructType): String =
    s"""{"id":0,"class":"org.apache.spark.sql.execution.exchange.ShuffleExchangeExec","nodeName":"Exchange",""" +
      s""""output":${attrs(schema)},"fields":{"outputPartitioning":"SinglePartition","purpose":"broadcast"},""" +
      s""""children":[${inputLeaf(1, "BolideBroadcastInput", schema)}]}"""
}
