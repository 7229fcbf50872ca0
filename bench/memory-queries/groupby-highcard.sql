-- make bench-memory: a high-cardinality GROUP BY, one group per (order, part): ~6M groups at SF 1,
-- nearly one per lineitem row, so partial aggregation keeps almost every row; reduced to one row so
-- that the answer costs the driver nothing.
select count(*) as groups, sum(n) as lines, sum(revenue) as revenue
from (
  select l_orderkey, l_partkey, count(*) as n, sum(l_extendedprice * (1 - l_discount)) as revenue
  from lineitem
  group by l_orderkey, l_partkey
) t
