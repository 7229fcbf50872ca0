// Package join owns the native joins, one strategy per file: the hash join of Spark's
// BroadcastHashJoinExec (hashjoin.go) over a build side held in task memory (build.go) and a
// typed hash table of its keys (table.go).
//
// Joins follow Spark's semantics exactly (HashJoin.scala): a key with a null never matches, keys
// compare as Spark's HashedRelation compares them (bit for bit), the extra condition is applied
// to the key-matching pairs, and the probe (streamed) side's row order is kept, so a parent may
// rely on the streamed child's ordering as Spark's BroadcastHashJoinExec.outputOrdering says.
package join
