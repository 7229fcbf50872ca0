#!/usr/bin/env python3
"""Compares two TPC-H Parquet data sets table by table (a one-off check, not part of make test).

    python scripts/tpch-compare-generators.py DIR_A DIR_B [--labels A,B]

Each DIR holds <table>/<table>.<n>.parquet for the 8 tables, as scripts/tpch-data.sh writes them (used
to check that the tpcgen-cli wheel from PyPI generates the same data as tpchgen-cli from crates.io).
Per table it reports:
  - data: the Arrow schema (names, types, nullability) and the rows. Rows are compared file by file
    in order when both sides split the table alike, else as whole tables, and if the order differs,
    sorted on all columns. Arrow view types (string_view) count as their plain types here: Spark
    reads the Parquet types, which the comparison also reports.
  - Parquet-level facts that do not change answers: files and their rows, row groups, compression,
    encodings, field ids, key-value metadata, created_by, bytes, file hashes.
Exits 0 when every table has the same schema and the same rows, 1 otherwise. Needs pyarrow (the
venv of scripts/tpch-data.sh has it: ~/.cache/bolide/tools/tpcgen-cli-<version>/bin/python).
"""
import argparse
import collections
import hashlib
import os
import re
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]


def part_files(data_dir, table):
    d = os.path.join(data_dir, table)
    names = [f for f in os.listdir(d) if f.endswith(".parquet")] if os.path.isdir(d) else []
    num = lambda f: int(m.group(1)) if (m := re.search(r"\.(\d+)\.parquet$", f)) else -1
    return [os.path.join(d, f) for f in sorted(names, key=lambda f: (num(f), f))]


def plain_type(t):
    """string_view and large_string -> string, the binary ones -> binary; other types unchanged."""
    if pa.types.is_string_view(t) or pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_binary_view(t) or pa.types.is_large_binary(t):
        return pa.binary()
    return t


def plain_schema(schema):
    return pa.schema([pa.field(f.name, plain_type(f.type), f.nullable) for f in schema])


def fmt_schema(schema):
    return ", ".join(f"{f.name} {f.type}{'' if f.nullable else ' not null'}" for f in schema)


def read_plain(files):
    """The files' rows as one table with plain types and no metadata (field ids, ARROW:schema)."""
    tables = [pq.read_table(f) for f in files]
    return pa.concat_tables([t.cast(plain_schema(t.schema)).replace_schema_metadata(None) for t in tables])


def first_difference(a, b):
    """(row, column, value a, value b) of the first differing cell of two equally long tables."""
    for name in a.column_names:
        ne = pc.not_equal(a[name], b[name])
        if pc.any(ne).as_py():
            i = pc.index(ne, True).as_py()
            return i, name, a[name][i].as_py(), b[name][i].as_py()
    return None


def compare_rows(files_a, files_b, report):
    """True when the rows are the same; appends to report how that was established."""
    rows_a = [pq.ParquetFile(f).metadata.num_rows for f in files_a]
    rows_b = [pq.ParquetFile(f).metadata.num_rows for f in files_b]
    if sum(rows_a) != sum(rows_b):
        report.append(f"rows differ: {sum(rows_a)} vs {sum(rows_b)}")
        return False
    if rows_a == rows_b:  # same split: file by file, in order (one file in memory at a time)
        for fa, fb in zip(files_a, files_b):
            a, b = read_plain([fa]), read_plain([fb])
            if not a.equals(b):
                break
        else:
            report.append(f"rows identical in order, file by file ({sum(rows_a)} rows, {len(files_a)} files)")
            return True
    a, b = read_plain(files_a), read_plain(files_b)
    if a.equals(b):
        report.append(f"rows identical in order ({a.num_rows} rows; split into files differently)")
        return True
    diff = first_difference(a, b)
    keys = [(c, "ascending") for c in a.column_names]
    a, b = a.sort_by(keys), b.sort_by(keys)
    if a.equals(b):
        report.append(f"same rows in another order ({a.num_rows} rows; first difference in order: row {diff[0]} "
                      f"{diff[1]} {diff[2]!r} vs {diff[3]!r})")
        return True
    diff = first_difference(a, b)
    report.append(f"ROWS DIFFER (sorted on all columns, first difference: row {diff[0]} {diff[1]} "
                  f"{diff[2]!r} vs {diff[3]!r})")
    return False


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def parquet_facts(files):
    """Parquet-level facts of a table's files, as comparable values."""
    facts = collections.OrderedDict()
    metas = [pq.ParquetFile(f).metadata for f in files]
    schema = pq.ParquetFile(files[0]).schema
    facts["files"] = len(files)
    facts["rows per file"] = [m.num_rows for m in metas]
    facts["row groups per file"] = [m.num_row_groups for m in metas]
    facts["rows per row group (first file)"] = [metas[0].row_group(i).num_rows for i in range(metas[0].num_row_groups)]
    facts["bytes"] = sum(os.path.getsize(f) for f in files)
    facts["sha256 per file"] = [sha256(f)[:16] for f in files]
    facts["created_by"] = sorted({m.created_by for m in metas})
    facts["format_version"] = sorted({m.format_version for m in metas})
    facts["parquet schema"] = [
        (c.name, c.physical_type, str(c.logical_type), c.max_definition_level) for c in schema]
    arrow = pq.read_schema(files[0])
    facts["field ids"] = [(f.metadata or {}).get(b"PARQUET:field_id", b"-").decode() for f in arrow]
    facts["arrow types (embedded ARROW:schema)"] = [str(f.type) for f in arrow]
    facts["key-value metadata keys"] = sorted(k.decode() for k in (metas[0].metadata or {}))
    rg = metas[0].row_group(0)
    facts["compression"] = sorted({rg.column(i).compression for i in range(rg.num_columns)})
    facts["encodings (first row group)"] = [
        (rg.column(i).path_in_schema, tuple(sorted(rg.column(i).encodings))) for i in range(rg.num_columns)]
    facts["dictionary pages (first row group)"] = [rg.column(i).has_dictionary_page for i in range(rg.num_columns)]
    facts["statistics (first row group)"] = [rg.column(i).is_stats_set for i in range(rg.num_columns)]
    return facts


def short(v, limit=160):
    s = str(v)
    return s if len(s) <= limit else s[:limit] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--labels", default="A,B", help="names of the two sides in the report")
    ap.add_argument("--tables", default=",".join(TABLES))
    args = ap.parse_args()
    la, lb = args.labels.split(",")
    print(f"{la}: {args.a}\n{lb}: {args.b}")

    same_data = True
    for table in args.tables.split(","):
        files_a, files_b = part_files(args.a, table), part_files(args.b, table)
        print(f"\n== {table}")
        if not files_a or not files_b:
            print(f"  MISSING: {len(files_a)} files in {la}, {len(files_b)} in {lb}")
            same_data = False
            continue
        sa, sb = pq.read_schema(files_a[0]), pq.read_schema(files_b[0])
        if plain_schema(sa) != plain_schema(sb):
            print(f"  SCHEMA DIFFERS:\n    {la}: {fmt_schema(plain_schema(sa))}\n    {lb}: {fmt_schema(plain_schema(sb))}")
            same_data = False
            continue
        print(f"  schema identical ({len(sa)} columns: {fmt_schema(plain_schema(sa))})")
        report = []
        same_data &= compare_rows(files_a, files_b, report)
        for line in report:
            print("  " + line)
        fa, fb = parquet_facts(files_a), parquet_facts(files_b)
        for k in fa:
            if fa[k] == fb[k]:
                print(f"  parquet, same: {k}: {short(fa[k])}")
            else:
                print(f"  parquet, differs: {k}:\n    {la}: {short(fa[k])}\n    {lb}: {short(fb[k])}")

    print("\n" + ("SAME DATA: every table has the same schema and the same rows" if same_data
                  else "DIFFERENT DATA (see above)"))
    sys.exit(0 if same_data else 1)


if __name__ == "__main__":
    main()
