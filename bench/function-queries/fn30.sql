-- 30 common functions (string, date, timestamp, decimal, cast, conditional) over the 10 million rows
-- of the function benchmark's table (scripts/functions-data.py), folded into one hash per row and
-- summed, so that every function is evaluated on every row and only one row is collected.
SELECT count(*), sum(hash(
  upper(s), lower(s), length(s), substring(s, 2, 5), concat(s, '-', code), trim(p), lpad(code, 12, '0'),
  replace(s, 'an', 'AN'), instr(s, 'e'), reverse(s), initcap(s), ltrim(p), rpad(s, 8, '*'),
  year(d), month(d), dayofmonth(d), date_add(d, n), datediff(d, DATE'2000-01-01'), add_months(d, 3),
  last_day(d), trunc(d, 'MM'), date_trunc('HOUR', ts), hour(ts),
  CAST(code AS INT), CAST(dec AS STRING), CAST(x AS DECIMAL(14, 3)), round(dec, 1), dec * 1.15,
  coalesce(s, 'none'), if(n > 15, s, code)))
FROM fn
