-- A filtered aggregate (TPC-H Q6's predicate) over lineitem_parquet.
SELECT sum(l_extendedprice * l_discount) AS revenue, count(*) AS n
FROM lineitem_parquet
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24
