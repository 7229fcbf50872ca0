package org.apache.spark.sql.execution.joins

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

/**
 * The rows of a broadcast value, for one task of a native block (Bolide). Lives in Spark's joins
 * package because HashedRelation is private to it. A broadcast join's HashedRelation holds the
 * build side's rows whose keys are not null (the only ones that can match); an identity broadcast
 * holds all rows.
 */
object BolideBroadcastRows {
  def apply(value: Any, numFields: Int): Iterator[InternalRow] = value match {
    case EmptyHashedRelation => Iterator.empty
    // A null-aware anti join's build side with a null key (the relation keeps no rows): one row
    // of nulls says so to the native join, whose build key is a plain column (the translator
    // checks), hence null too.
    case HashedRelationWithAllNullKeys => Iterator.single(new GenericInternalRow(numFields))
    // A copy per task: a relation's lookups reuse its row objects. Every value once: the
    // unsafe map iterates its (key, value) records (keys() repeats a key per value), the long map
    // its distinct keys, each with its chain of values.
    case u: UnsafeHashedRelation => u.asReadOnlyCopy().valuesWithKeyIndex().map(_.getValue)
    case l: LongHashedRelation =>
      val r = l.asReadOnlyCopy()
      r.keys().flatMap(k => Option(r.get(k.getLong(0))).getOrElse(Iterator.empty))
    case h: HashedRelation => throw new IllegalStateException(
      s"a native block cannot read a broadcast ${h.getClass.getName}")
    case rows: Array[InternalRow] => rows.iterator
    case other => throw new IllegalStateException(
      s"a native block cannot read a broadcast of ${other.getClass.getName}")
  }
}
