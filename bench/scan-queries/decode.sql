-- Full decode of TPC-H lineitem: every one of its 16 columns is read and every value looked at
-- (a max per column costs little next to decoding it), with a one-row answer so that no engine
-- pays for moving rows to the client.
SELECT
  max(l_orderkey), max(l_partkey), max(l_suppkey), max(l_linenumber),
  max(l_quantity), max(l_extendedprice), max(l_discount), max(l_tax),
  max(l_returnflag), max(l_linestatus), max(l_shipdate), max(l_commitdate),
  max(l_receiptdate), max(l_shipinstruct), max(l_shipmode), max(l_comment)
FROM lineitem
