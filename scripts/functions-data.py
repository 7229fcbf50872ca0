#!/usr/bin/env python3
"""Writes the function benchmark's table `fn` (10 million rows by default) as Parquet into
<out>/fn/, with DuckDB (from PyPI, as bench-scan uses it): strings of mixed case with multi-byte
characters, padding and nulls, digit strings, dates from 1970 to 2037, timestamps, decimals, doubles
and small ints, each drawn from a hash of the row number (deterministic).
Usage: functions-data.py OUT [ROWS]."""
import os
import sys

import duckdb


def main():
    out, rows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    d = os.path.join(out, "fn")
    os.makedirs(d, exist_ok=True)
    words = ["alpha", "Beta", "gamma delta", "épsilon", "Zeta", "ETA", "theta", "iota kappa",
             "lambda", "mü", "nu", "xi omicron", "pi", "rho", "sigma ς", "tau"]
    lst = "[" + ", ".join("'" + w + "'" for w in words) + "]"
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute(f"""
      COPY (
        SELECT i AS id,
          CASE WHEN hash(i, 1) % 20 = 0 THEN NULL
               ELSE list_extract({lst}, (hash(i, 2) % 16)::INT + 1) || ' ' || (hash(i, 3) % 100000)::VARCHAR END AS s,
          '  ' || list_extract({lst}, (hash(i, 4) % 16)::INT + 1) || '  ' AS p,
          ((hash(i, 5) % 1099999)::BIGINT - 99999)::VARCHAR AS code,
          (DATE '1970-01-01' + ((hash(i, 6) % 24837)::INT)) AS d,
          make_timestamp(((hash(i, 6) % 24837)::BIGINT) * 86400000000 + (hash(i, 7) % 86400000000)::BIGINT)::TIMESTAMPTZ AS ts,
          (((hash(i, 8) % 2000000000000)::BIGINT - 1000000000000)::DECIMAL(14, 0) / 100)::DECIMAL(12, 2) AS dec,
          ((hash(i, 9) % 2000000)::DOUBLE - 1000000) / 7.0 AS x,
          (hash(i, 10) % 30)::INT AS n
        FROM range({rows}) t(i)
      ) TO '{os.path.join(d, "part-0.parquet")}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 1000000)
    """)
    open(os.path.join(out, "_COMPLETE"), "w").close()


if __name__ == "__main__":
    main()
