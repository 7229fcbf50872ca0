-- Full scan of all 16 lineitem columns (lineitem_parquet).
SELECT max(l_orderkey), max(l_partkey), max(l_suppkey), max(l_linenumber), max(l_quantity), max(l_extendedprice), max(l_discount), max(l_tax), max(l_returnflag), max(l_linestatus), max(l_shipdate), max(l_commitdate), max(l_receiptdate), max(l_shipinstruct), max(l_shipmode), max(l_comment), count(*)
FROM lineitem_parquet
