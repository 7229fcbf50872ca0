-- fn30 with one expression that Bolide dispatches to Spark's own code (issue 11: a query with one
-- dispatched expression runs at least 1.5x vanilla): cos has no native kernel (Spark calls Java's
-- Math.cos, a HotSpot intrinsic that Go's math does not reproduce bit for bit), so the Filter on it
-- stays native and the JVM evaluates cos(x) > -2.0D over each batch (one upcall per batch, x in and
-- a boolean column out). The condition keeps every row, so the rest is fn30's work.
SELECT count(*), sum(hash(
  upper(s), lower(s), length(s), substring(s, 2, 5), concat(s, '-', code), trim(p), lpad(code, 12, '0'),
  replace(s, 'an', 'AN'), instr(s, 'e'), reverse(s), initcap(s), ltrim(p), rpad(s, 8, '*'),
  year(d), month(d), dayofmonth(d), date_add(d, n), datediff(d, DATE'2000-01-01'), add_months(d, 3),
  last_day(d), trunc(d, 'MM'), date_trunc('HOUR', ts), hour(ts),
  CAST(code AS INT), CAST(dec AS STRING), CAST(x AS DECIMAL(14, 3)), round(dec, 1), dec * 1.15,
  coalesce(s, 'none'), if(n > 15, s, code)))
FROM fn WHERE cos(x) > -2.0D
