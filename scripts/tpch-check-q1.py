#!/usr/bin/env python3
"""Checks generated TPC-H data against the official answer of Q1 at scale factor 1.

    python scripts/tpch-check-q1.py [DATA_DIR] [--answer tpch/answers/q1-sf1.csv]

DATA_DIR (default data/tpch/sf1) holds lineitem/*.parquet. Q1 (DELTA = 90, as in
tpch/queries/q1.sql) is computed exactly: Arrow's decimal arithmetic on the decimal(15,2) columns
(integers underneath), sums and averages in Python's Decimal, then each value rounded half-up to the
answer file's decimals (2), as the TPC-H answer set is. Prints the computed rows (sums exact) on
stderr and exits 1, with the differing cells, unless all 4 rows equal the answer file.
Needs pyarrow (scripts/tpch-data.sh installs it into the generator's venv and runs this after SF 1).
"""
import argparse
import csv
import datetime
import decimal
import os
import sys
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ["l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice", "l_discount", "l_tax",
           "l_shipdate"]
SHIPDATE_MAX = datetime.date(1998, 12, 1) - datetime.timedelta(days=90)  # 1998-09-02
ONE = pa.scalar(Decimal("1.00"), pa.decimal128(3, 2))


def q1_sums(data_dir):
    """{(returnflag, linestatus): [sum_qty, sum_base_price, sum_disc_price, sum_charge, sum_disc, count]}"""
    files = sorted(os.path.join(data_dir, "lineitem", f) for f in os.listdir(os.path.join(data_dir, "lineitem"))
                   if f.endswith(".parquet"))
    if not files:
        sys.exit(f"no lineitem/*.parquet under {data_dir}")
    groups = {}
    for batch in (b for f in files for b in pq.ParquetFile(f).iter_batches(columns=COLUMNS)):
        t = pa.Table.from_batches([batch])
        for c in ["l_returnflag", "l_linestatus"]:  # the generator's Arrow schema says string_view
            t = t.set_column(t.column_names.index(c), c, t[c].cast(pa.string()))
        t = t.filter(pc.less_equal(t["l_shipdate"], pa.scalar(SHIPDATE_MAX, pa.date32())))
        if t.num_rows == 0:
            continue
        for c in ["l_quantity", "l_extendedprice", "l_discount", "l_tax"]:
            if not pa.types.is_decimal(t[c].type):
                sys.exit(f"{c} is {t[c].type}, not a decimal: no exact check possible")
        ext = t["l_extendedprice"]
        # ext * (1 - disc) is decimal(.., 4), exact; narrowed (a checked cast: it fails rather than
        # round or overflow) so that the product with (1 + tax) stays within decimal128's 38 digits.
        disc_price = pc.cast(pc.multiply(ext, pc.subtract(ONE, t["l_discount"])), pa.decimal128(20, 4))
        charge = pc.multiply(disc_price, pc.add(ONE, t["l_tax"]))
        t = pa.table({
            "f": t["l_returnflag"], "s": t["l_linestatus"],
            "qty": t["l_quantity"], "price": ext, "disc_price": disc_price, "charge": charge,
            "disc": t["l_discount"],
        })
        agg = t.group_by(["f", "s"]).aggregate(
            [("qty", "sum"), ("price", "sum"), ("disc_price", "sum"), ("charge", "sum"), ("disc", "sum"),
             ("qty", "count")])
        for r in agg.to_pylist():
            acc = groups.setdefault((r["f"], r["s"]), [Decimal(0)] * 5 + [0])
            for i, k in enumerate(["qty_sum", "price_sum", "disc_price_sum", "charge_sum", "disc_sum"]):
                acc[i] += r[k]
            acc[5] += r["qty_count"]
    return groups


def q1_rows(groups):
    decimal.getcontext().prec = 50
    rows = []
    for (flag, status), (qty, price, disc_price, charge, disc, n) in sorted(groups.items()):
        rows.append({
            "l_returnflag": flag, "l_linestatus": status,
            "sum_qty": qty, "sum_base_price": price, "sum_disc_price": disc_price, "sum_charge": charge,
            "avg_qty": qty / n, "avg_price": price / n, "avg_disc": disc / n, "count_order": n,
        })
    return rows


def read_answer(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="?", default=os.path.join(ROOT, "data", "tpch", "sf1"))
    ap.add_argument("--answer", default=os.path.join(ROOT, "tpch", "answers", "q1-sf1.csv"))
    args = ap.parse_args()

    expected = read_answer(args.answer)
    got = q1_rows(q1_sums(args.data))
    cols = list(expected[0].keys())
    print("Q1 computed (sums exact, averages to 8 decimals): " + "|".join(cols), file=sys.stderr)
    for r in got:
        print("  " + "|".join(str(r[c].quantize(Decimal("1e-8")) if c.startswith("avg") else r[c]) for c in cols),
              file=sys.stderr)

    diffs = []
    got_keys = [(r["l_returnflag"], r["l_linestatus"]) for r in got]
    want_keys = [(e["l_returnflag"], e["l_linestatus"]) for e in expected]
    if got_keys != want_keys:
        diffs.append(f"groups {got_keys}, the answer has {want_keys}")
    for g, e in zip(got, expected):
        for c in cols[2:]:
            want = e[c]
            if isinstance(g[c], Decimal):  # round as the answer file writes it: same number of decimals
                places = len(want.split(".")[1]) if "." in want else 0
                have = str(g[c].quantize(Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP))
            else:
                have = str(g[c])
            if have != want:
                diffs.append(f"{e['l_returnflag']}|{e['l_linestatus']} {c}: got {have}, official {want}")
    if diffs:
        print(f"TPC-H Q1 at {args.data} differs from the official answer ({args.answer}):", file=sys.stderr)
        for d in diffs:
            print("  " + d, file=sys.stderr)
        sys.exit(1)
    print(f"TPC-H Q1 equals the official SF 1 answer ({len(got)} rows, {os.path.relpath(args.answer, ROOT)})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
