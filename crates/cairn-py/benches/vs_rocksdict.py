"""Python-level throughput of cairndb against RocksDB through rocksdict, side by side.

Each round opens a fresh database per engine, in alternating order, and times three phases from
Python: `put` (N puts of 16-byte keys and 100-byte values in random order), `get` (N gets of
random existing keys) and `scan` (one pass over every entry with items()). Both engines get a
64 MiB write buffer, LZ4 compression, a 10-bit Bloom filter and a 256 MiB block cache.
Prints ops/s per phase, engine and round, then medians and per-round ratios.

Usage: python vs_rocksdict.py [N] [ROUNDS] [DIR]   (defaults 1000000, 3, a temporary directory)
Build cairndb in release mode first (pip install ./crates/cairn-py).
"""

import os
import random
import shutil
import statistics
import sys
import tempfile
import time

import rocksdict

import cairndb

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
BASE = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="cairndb-bench-")

rng = random.Random(7)
KEYS = [b"%016d" % i for i in range(N)]
PUT_ORDER = KEYS[:]
rng.shuffle(PUT_ORDER)
GET_ORDER = [KEYS[rng.randrange(N)] for _ in range(N)]
VALUES = [os.urandom(50) * 2 for _ in range(1024)]


def open_cairn(path):
    return cairndb.Db(
        path,
        "write_buffer_size=64m;compression=kLZ4Compression;"
        "block_based_table_factory={block_cache=268435456;filter_policy=bloomfilter:10:false}",
    )


def open_rocks(path):
    o = rocksdict.Options(raw_mode=True)
    o.create_if_missing(True)
    o.set_write_buffer_size(64 << 20)
    o.set_compression_type(rocksdict.DBCompressionType.lz4())
    t = rocksdict.BlockBasedOptions()
    t.set_block_cache(rocksdict.Cache(256 << 20))
    t.set_bloom_filter(10, False)
    o.set_block_based_table_factory(t)
    return rocksdict.Rdict(path, o)


def run(name, opener):
    path = os.path.join(BASE, name)
    shutil.rmtree(path, ignore_errors=True)
    db = opener(path)
    t0 = time.perf_counter()
    for i, k in enumerate(PUT_ORDER):
        db[k] = VALUES[i & 1023]
    t1 = time.perf_counter()
    found = 0
    for k in GET_ORDER:
        if db.get(k) is not None:
            found += 1
    t2 = time.perf_counter()
    n = 0
    for _k, _v in db.items():
        n += 1
    t3 = time.perf_counter()
    db.close()
    shutil.rmtree(path, ignore_errors=True)
    assert found == N and n == N, (name, found, n)
    return {"put": N / (t1 - t0), "get": N / (t2 - t1), "scan": N / (t3 - t2)}


results = {"cairndb": [], "rocksdict": []}
for r in range(ROUNDS):
    order = [("cairndb", open_cairn), ("rocksdict", open_rocks)]
    if r % 2:
        order.reverse()
    for name, opener in order:
        res = run(name, opener)
        results[name].append(res)
        print(f"round {r + 1} {name:9s} " + " ".join(f"{p}={v:,.0f}/s" for p, v in res.items()),
              flush=True)

for phase in ("put", "get", "scan"):
    c = [x[phase] for x in results["cairndb"]]
    k = [x[phase] for x in results["rocksdict"]]
    ratios = ", ".join(f"{a / b:.2f}" for a, b in zip(c, k))
    print(f"{phase:5s} cairndb median {statistics.median(c):,.0f}/s  rocksdict median "
          f"{statistics.median(k):,.0f}/s  ratio {statistics.median(c) / statistics.median(k):.2f} "
          f"(per round: {ratios})")
