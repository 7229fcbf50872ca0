#!/usr/bin/env python3
"""Writes the pyarrow (Arrow C++ writer) Parquet corpus that native/parquet's TestCorpusPyarrow reads.

    scripts/parquet-corpus.py OUT_DIR

For each file OUT_DIR/<name>.parquet it writes OUT_DIR/<name>.json with the values expected back,
built from the Python data that was written (never read back from the file):

    {"parquet": "<name>.parquet", "rows": N, "row_groups": [sizes], "layout": {...},
     "columns": [{"name": ..., "type": "<Spark type name>", "values": [...]}]}

Values: null; strings as strings; binary as hex; integers, dates (days since the epoch) and
timestamps (microseconds) as numbers; float and double as their IEEE-754 bits (a number, so that
NaN, infinities and -0.0 survive JSON); decimals as the unscaled integer in a string.

The shapes are those that broke or could break a page decoder: all-null and mostly-null columns
(95%, 58%), null-only pages between pages with values, all-null row groups, empty strings only,
one value only (a dictionary of one entry, indexes of bit width 0), dictionary fallback, plus a
normal mix; in layouts with the dictionary on and off, data page v1 and v2, tiny pages and one page,
one and several row groups (1-row groups included), snappy and no compression (and zstd, gzip,
brotli, LZ4_RAW once each); then DELTA and BYTE_STREAM_SPLIT encodings, INT96 timestamps, page
checksums and indexes, content-defined chunking. TPC-DS-like string columns (customer.c_login all
null, time_dim.t_meal_time 58% null in runs of hours) come last.

scripts/parquet-corpus.sh sets up pyarrow in a venv, runs this and then the Go test.
"""

import json
import math
import os
import random
import struct
import sys
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 1300
# several row groups, with 1-row groups first and in the middle:
# rows [0,1) [1,701) [701,702) [702,1102) [1102,1300)
GROUPS = [1, 700, 1, 400, 198]

F32_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
F32_TINY = struct.unpack("<f", struct.pack("<I", 1))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


# ---- column types ---------------------------------------------------------------------------
#
# Each type: (Spark type name, Arrow type, value(rng, seed) -> Python value, to_json(value)).
# A seed is an integer: equal seeds give equal values (so that "mix" columns have few distinct
# values and "single" columns one), and some seeds give the edge values of the type.


def v_string(seed):
    k = seed % 8
    if k == 0:
        return ""
    if k == 1:
        return "long-" * (3 + seed % 10) + str(seed)
    if k == 2:
        return "é€😀" + str(seed % 97)
    return "v" + format(seed, "x")


def v_binary(seed):
    r = random.Random(seed)
    return bytes(r.randrange(256) for _ in range(seed % 11))


def v_int(bits):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def f(seed):
        k = seed % 17
        if k == 3:
            return lo
        if k == 4:
            return hi
        if k == 5:
            return 0
        if seed % 2 == 0:  # small values, wrapped to the width
            return (seed % 1000 - 500 - lo) % (1 << bits) + lo
        return random.Random(seed).randint(lo, hi)

    return f


def v_float32(seed):
    k = seed % 23
    special = {0: math.nan, 1: math.inf, 2: -math.inf, 3: -0.0, 4: F32_MAX, 5: F32_TINY, 6: -F32_MAX}
    if k in special:
        return special[k]
    return (random.Random(seed).randrange(4001) - 2000) / 8


def v_float64(seed):
    k = seed % 23
    special = {0: math.nan, 1: math.inf, 2: -math.inf, 3: -0.0, 4: -sys.float_info.max,
               5: 5e-324, 6: sys.float_info.max}
    if k in special:
        return special[k]
    return (random.Random(seed).randrange(100001) - 50000) / 64


def v_bool(seed):
    return random.Random(seed).random() < 0.5


def v_decimal(precision):
    top = 10 ** precision - 1

    def f(seed):  # the unscaled value
        k = seed % 19
        if k == 0:
            return top
        if k == 1:
            return -top
        if k == 2:
            return -1
        if k == 3:
            return 0
        return random.Random(seed).randint(-top, top)

    return f


def v_date(seed):
    k = seed % 13
    if k < 3:
        return [-719162, 2932896, 0][k]  # 0001-01-01, 9999-12-31, 1970-01-01
    return random.Random(seed).randint(-30000, 30000)


def v_ts_micros(seed):
    k = seed % 13
    if k < 4:
        return [-62135596800000000, 253402300799999999, 0, -1][k]
    return random.Random(seed).randint(-2 * 10**15, 2 * 10**15)


def v_ts_millis(seed):
    k = seed % 13
    if k < 4:
        return [-62135596800000, 253402300799999, 0, -1][k]
    return random.Random(seed).randint(-2 * 10**12, 2 * 10**12)


def dec_type(p, s):
    return ("decimal(%d,%d)" % (p, s), pa.decimal128(p, s), v_decimal(p))


# name -> (Spark type, Arrow type, value(seed)); "full" kinds get every shape, the others the core
# shapes (their pages go through the same decoders; only the conversion differs).
TYPES = {
    "string": ("string", pa.string(), v_string, True),
    "string_cat": ("string", pa.dictionary(pa.int32(), pa.string()), v_string, True),
    "large_string": ("string", pa.large_string(), v_string, False),
    "binary": ("binary", pa.binary(), v_binary, False),
    "int8": ("byte", pa.int8(), v_int(8), False),
    "int16": ("short", pa.int16(), v_int(16), False),
    "int32": ("integer", pa.int32(), v_int(32), True),
    "int64": ("long", pa.int64(), v_int(64), True),
    "float": ("float", pa.float32(), v_float32, False),
    "double": ("double", pa.float64(), v_float64, True),
    "bool": ("boolean", pa.bool_(), v_bool, True),
    "dec9": dec_type(9, 2) + (False,),  # INT32 with store_decimal_as_integer
    "dec18": dec_type(18, 3) + (False,),  # INT64
    "dec30": dec_type(30, 4) + (True,),  # FIXED_LEN_BYTE_ARRAY(13)
    "date": ("date", pa.date32(), v_date, False),
    "ts_us": ("timestamp", pa.timestamp("us", tz="UTC"), v_ts_micros, True),
    "ts_ms": ("timestamp", pa.timestamp("ms", tz="UTC"), v_ts_millis, False),
}
STRING_TYPES = ("string", "string_cat", "large_string", "binary")


def to_arrow_value(tname, v):
    if tname.startswith("dec"):
        scale = TYPES[tname][1].scale
        return Decimal("%dE-%d" % (v, scale))
    return v


def to_json(tname, v):
    if v is None:
        return None
    if tname == "binary":
        return v.hex()
    if tname == "float":
        return f32_bits(v)
    if tname == "double":
        return f64_bits(v)
    if tname.startswith("dec"):
        return str(v)
    if tname == "ts_ms":
        return v * 1000  # read back as microseconds
    return v


# ---- shapes ---------------------------------------------------------------------------------
#
# (name, optional?, required?, core?, strings only?, is_null(i, rng), seed(i) or None for "")


def mix_seed(i):
    return i % 29 + (i // 250) * 5  # ~29 values, drifting from row group to row group


def wide_seed(i):
    return random.Random(i * 7919 + 1).getrandbits(62)


def const_seed(i):
    return 4242


def pct(p):
    return lambda i, r: r.random() < p / 100


def never(i, r):
    return False


SHAPES = [
    ("allnull", True, False, True, False, lambda i, r: True, mix_seed),
    ("null95", True, False, True, False, pct(95), mix_seed),
    ("null58", True, False, False, False, pct(58), mix_seed),
    ("single", True, True, True, False, never, const_seed),
    ("singlenull", True, False, False, False, pct(50), const_seed),
    # the first two row groups of GROUPS
    ("headnull", True, False, False, False, lambda i, r: i < 701, mix_seed),
    # the middle row groups, and parts of their neighbours
    ("nullrun", True, False, True, False, lambda i, r: 690 <= i < 1150, mix_seed),
    # the last row group
    ("tailnull", True, False, False, False, lambda i, r: i >= 1102, mix_seed),
    ("mix", True, False, True, False, pct(15), mix_seed),
    ("wide", True, False, False, False, pct(10), wide_seed),
    ("dense", True, True, False, False, never, mix_seed),
    ("widedense", False, True, True, False, never, wide_seed),
    ("empty", True, True, True, True, never, None),
    ("emptynull", True, False, True, True, pct(40), None),
]


def corpus_columns(rows):
    """[(name, type name, nullable, values)] for every type in the shapes that apply to it."""
    cols = []
    for ti, (tname, (_, _, value, full)) in enumerate(TYPES.items()):
        for si, (sname, opt, req, core, strs, is_null, seed) in enumerate(SHAPES):
            if strs and tname not in STRING_TYPES or not core and not full:
                continue
            for required in (False, True):
                if required and not req or not required and not opt:
                    continue
                r = random.Random(ti * 1000 + si)
                vals = []
                for i in range(rows):
                    if is_null(i, r):
                        vals.append(None)
                    elif seed is None:
                        vals.append(b"" if tname == "binary" else "")
                    else:
                        vals.append(value(seed(i)))
                name = "%s_%s%s" % (tname, sname, "_req" if required else "")
                cols.append((name, tname, not required, vals))
    return cols


def table_of(cols, types):
    fields, arrays = [], []
    for name, tname, nullable, vals in cols:
        at = types[name]
        fields.append(pa.field(name, at, nullable=nullable))
        av = [None if v is None else to_arrow_value(tname, v) for v in vals]
        if pa.types.is_dictionary(at):
            arrays.append(pa.array(av, at.value_type).dictionary_encode())
        else:
            arrays.append(pa.array(av, at))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


# ---- layouts --------------------------------------------------------------------------------


def layout(name, dict_=True, v2=False, tiny=False, groups=None, compression="snappy", row_group_size=None, **extra):
    return dict(name=name, dict=dict_, v2=v2, tiny=tiny, groups=groups, compression=compression,
                row_group_size=row_group_size, extra=extra)


# Every pair of values of (dictionary, page version, page size, row groups, compression), then
# dictionary fallback, row_group_size values, DELTA / BYTE_STREAM_SPLIT encodings, INT96, page
# checksums and page indexes, content-defined chunking, the other codecs. Tiny pages hold at most
# TINY_PAGE_ROWS rows (max_rows_per_page: a run of nulls makes null-only pages, which a limit on
# bytes alone never cuts).
LAYOUTS = [
    layout("dict_v1_tiny_groups_snappy", tiny=True, groups=GROUPS),
    layout("dict_v2_tiny_onegroup_none", v2=True, tiny=True, compression="none"),
    layout("plain_v1_onepage_onegroup_snappy", dict_=False),
    layout("plain_v2_tiny_groups_none", dict_=False, v2=True, tiny=True, groups=GROUPS, compression="none"),
    layout("dict_v2_onepage_groups_snappy", v2=True, groups=GROUPS),
    layout("plain_v1_tiny_groups_none", dict_=False, tiny=True, groups=GROUPS, compression="none"),
    layout("dict_v1_onepage_onegroup_none", compression="none"),
    layout("fallback_v1_tiny_groups_snappy", tiny=True, groups=GROUPS, dictionary_pagesize_limit=1024),
    layout("fallback_v2_tiny_onegroup_none", v2=True, tiny=True, compression="none", dictionary_pagesize_limit=1024),
    layout("dict_v2_tiny_rgsize250_snappy", v2=True, tiny=True, row_group_size=250),
    layout("plain_v1_onepage_rgsize512_none", dict_=False, compression="none", row_group_size=512),
    layout("delta_v2_tiny_groups_snappy", dict_=False, v2=True, tiny=True, groups=GROUPS, delta=True),
    layout("delta_v1_onepage_onegroup_none", dict_=False, compression="none", delta=True),
    layout("int96_v1_tiny_groups_snappy", tiny=True, groups=GROUPS, use_deprecated_int96_timestamps=True),
    layout("crc_index_v2_tiny_groups_snappy", v2=True, tiny=True, groups=GROUPS,
           write_page_checksum=True, write_page_index=True),
    layout("cdc_v1_groups_snappy", groups=GROUPS, use_content_defined_chunking={"min_chunk_size": 256,
                                                                                "max_chunk_size": 2048}),
    layout("dict_v2_tiny_groups_zstd", v2=True, tiny=True, groups=GROUPS, compression="zstd"),
    layout("plain_v1_tiny_onegroup_gzip", dict_=False, tiny=True, compression="gzip"),
    layout("plain_v2_onepage_groups_lz4", dict_=False, v2=True, groups=GROUPS, compression="lz4"),
    layout("plain_v1_onepage_onegroup_lz4", dict_=False, compression="lz4"),
    layout("dict_v1_onepage_groups_brotli", groups=GROUPS, compression="brotli"),
]

TINY_PAGE_ROWS = 37


def delta_encodings(cols, types):
    enc = {}
    for name, tname, _, _ in cols:
        at = types[name]
        if pa.types.is_dictionary(at) or tname == "bool":
            continue
        if tname in ("string", "binary"):
            enc[name] = "DELTA_BYTE_ARRAY"
        elif tname == "large_string":
            enc[name] = "DELTA_LENGTH_BYTE_ARRAY"
        elif tname in ("float", "double", "dec30"):
            enc[name] = "BYTE_STREAM_SPLIT"
        elif tname in ("int8", "int16", "int32", "int64", "date", "ts_us", "ts_ms", "dec9", "dec18"):
            enc[name] = "DELTA_BINARY_PACKED"
    return enc


def write(out_dir, fname, cols, lay, types, extra_layout_info=None):
    table = table_of(cols, types)
    rows = table.num_rows
    extra = dict(lay["extra"])
    delta = extra.pop("delta", False)
    kw = dict(
        use_dictionary=lay["dict"],
        data_page_version="2.0" if lay["v2"] else "1.0",
        compression=lay["compression"],
        store_decimal_as_integer=True,
        **extra,
    )
    if delta:
        kw["column_encoding"] = delta_encodings(cols, types)
    if lay["tiny"]:
        kw.update(data_page_size=256, write_batch_size=16, max_rows_per_page=TINY_PAGE_ROWS)
    path = os.path.join(out_dir, fname + ".parquet")
    if lay["row_group_size"]:
        pq.write_table(table, path, row_group_size=lay["row_group_size"], **kw)
        n = lay["row_group_size"]
        groups = [min(n, rows - at) for at in range(0, rows, n)]
    else:
        groups = lay["groups"] or [rows]
        with pq.ParquetWriter(path, table.schema, **kw) as w:
            at = 0
            for g in groups:  # write_table starts a new row group on each call
                w.write_table(table.slice(at, g), row_group_size=g)
                at += g
    info = {k: v for k, v in lay.items() if k != "extra"}
    info.update({k: v for k, v in lay["extra"].items()})
    info["pyarrow"] = pa.__version__
    if extra_layout_info:
        info.update(extra_layout_info)
    spec = {
        "parquet": fname + ".parquet",
        "rows": rows,
        "row_groups": groups,
        "layout": info,
        "columns": [
            {"name": name, "type": TYPES[tname][0] if tname in TYPES else tname,
             "values": [to_json(tname, v) for v in vals]}
            for name, tname, _, vals in cols
        ],
    }
    with open(os.path.join(out_dir, fname + ".json"), "w") as f:
        json.dump(spec, f, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return path


# ---- TPC-DS-like string columns -------------------------------------------------------------
#
# Shaped after tpcgen-cli's customer and time_dim: c_login is NULL in every row, t_meal_time is
# NULL outside meal hours (58% of the rows, in runs of hours); the other string columns have a few
# percent of NULLs like dsdgen's. "tpcds" types are plain strings / ints here.

SALUTATIONS = ["Mr.", "Mrs.", "Ms.", "Dr.", "Miss", "Sir"]
FIRST = ["James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "José", "Zoë"]
LAST = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Núñez", "O'Brien"]
COUNTRIES = ["UNITED STATES", "CHILE", "GUINEA-BISSAU", "FRENCH POLYNESIA", "CÔTE D'IVOIRE", "KIRIBATI"]


def tpcds_customer(rows):
    r = random.Random(11)

    def maybe(v, p=0.035):
        return None if r.random() < p else v

    def bkey(i):  # dsdgen's business keys: 16 letters
        s, x = "", i
        for _ in range(16):
            s = "ABCDEFGHIJKLMNOP"[x % 16] + s
            x //= 16
        return s

    cols = {n: [] for n in ["c_customer_sk", "c_customer_id", "c_salutation", "c_first_name", "c_last_name",
                            "c_preferred_cust_flag", "c_birth_year", "c_birth_country", "c_login",
                            "c_email_address", "c_last_review_date_sk"]}
    for i in range(rows):
        first, last = r.choice(FIRST), r.choice(LAST)
        cols["c_customer_sk"].append(i + 1)
        cols["c_customer_id"].append(bkey(i + 1))
        cols["c_salutation"].append(maybe(r.choice(SALUTATIONS)))
        cols["c_first_name"].append(maybe(first))
        cols["c_last_name"].append(maybe(last))
        cols["c_preferred_cust_flag"].append(maybe(r.choice("YN")))
        cols["c_birth_year"].append(maybe(r.randint(1924, 1992)))
        cols["c_birth_country"].append(maybe(r.choice(COUNTRIES)))
        cols["c_login"].append(None)
        cols["c_email_address"].append(maybe("%s.%s@%s.com" % (first, last, bkey(r.randrange(1 << 20))[-8:])))
        cols["c_last_review_date_sk"].append(maybe(r.randint(2452283, 2452648)))
    types = {"c_customer_sk": "int64", "c_birth_year": "int32", "c_last_review_date_sk": "int64"}
    return [(n, types.get(n, "string"), True, v) for n, v in cols.items()]


def tpcds_time_dim(rows=86400):
    shifts = ["third"] * 8 + ["first"] * 8 + ["second"] * 8
    cols = {n: [] for n in ["t_time_sk", "t_time_id", "t_time", "t_hour", "t_minute", "t_second", "t_am_pm",
                            "t_shift", "t_sub_shift", "t_meal_time"]}
    for i in range(rows):
        h, m, s = i // 3600, i // 60 % 60, i % 60
        cols["t_time_sk"].append(i)
        cols["t_time_id"].append("AAAAAAAA" + format(i, "08X"))
        cols["t_time"].append(i)
        cols["t_hour"].append(h)
        cols["t_minute"].append(m)
        cols["t_second"].append(s)
        cols["t_am_pm"].append("AM" if h < 12 else "PM")
        cols["t_shift"].append(shifts[h])
        cols["t_sub_shift"].append(["night", "morning", "afternoon", "evening"][(h + 3) // 6 % 4])
        meal = None
        if 6 <= h < 9:
            meal = "breakfast"
        elif 11 <= h < 14:
            meal = "lunch"
        elif 17 <= h < 21:
            meal = "dinner"
        cols["t_meal_time"].append(meal)
    types = {"t_time_sk": "int64", "t_time": "int32", "t_hour": "int32", "t_minute": "int32", "t_second": "int32"}
    return [(n, types.get(n, "string"), True, v) for n, v in cols.items()]


TPCDS_LAYOUTS = [
    # pyarrow's defaults: dictionary, snappy, v1 pages of 1 MiB, one row group
    layout("default"),
    # small row groups (whole row groups of NULLs) and v2 pages of at most 1000 rows
    layout("v2_groups", v2=True, row_group_size=2000, max_rows_per_page=1000, data_page_size=4096),
    layout("plain_v1_groups_none", dict_=False, compression="none", row_group_size=3000, data_page_size=4096),
]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: parquet-corpus.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.endswith((".parquet", ".json")):
            os.remove(os.path.join(out, f))
    cols = corpus_columns(ROWS)
    types = {name: TYPES[tname][1] for name, tname, _, _ in cols}
    n = 0
    for lay in LAYOUTS:
        write(out, "shapes_" + lay["name"], cols, lay, types)
        n += 1
    for table, make in (("customer", lambda: tpcds_customer(6000)), ("time_dim", tpcds_time_dim)):
        tcols = make()
        ttypes = {name: TYPES[tname][1] for name, tname, _, _ in tcols}
        for lay in TPCDS_LAYOUTS:
            write(out, "tpcds_%s_%s" % (table, lay["name"]), tcols, lay, ttypes, {"table": table})
            n += 1
    print("wrote %d files with pyarrow %s into %s" % (n, pa.__version__, out), file=sys.stderr)


if __name__ == "__main__":
    main()
