"""The same random operations applied to cairndb and to RocksDB through the rocksdict package
(a prebuilt RocksDB from PyPI), comparing every read and every scan. CAIRNDB_DIFF_OPS sets the
number of operations per seed (default 4000)."""

import os
import random

import pytest
import rocksdict

import cairndb

OPS = int(os.environ.get("CAIRNDB_DIFF_OPS", "4000"))


def rocks(path):
    o = rocksdict.Options(raw_mode=True)
    o.create_if_missing(True)
    return rocksdict.Rdict(path, o)


def rocks_scan(db, start, end, reverse):
    """The entries in [start, end) through rocksdict's raw iterator (seeks, not read-option
    bounds: rocksdict encodes bounds in its own non-raw format)."""
    it = db.iter()
    out = []
    if reverse:
        if end is None:
            it.seek_to_last()
        else:
            it.seek_for_prev(end)
            if it.valid() and it.key() == end:
                it.prev()
        while it.valid() and (start is None or it.key() >= start):
            out.append((it.key(), it.value()))
            it.prev()
    else:
        if start is None:
            it.seek_to_first()
        else:
            it.seek(start)
        while it.valid() and (end is None or it.key() < end):
            out.append((it.key(), it.value()))
            it.next()
    return out


def prefix_end(p):
    """The smallest key greater than every key that starts with p (None: there is none)."""
    b = bytearray(p)
    while b and b[-1] == 0xFF:
        b.pop()
    if not b:
        return None
    b[-1] += 1
    return bytes(b)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_answers_as_rocksdb(tmp_path, seed):
    rng = random.Random(seed)
    keys = [b"k%03d" % i for i in range(300)] + [b"", b"\x00", b"\xff\xff"]

    def key():
        return rng.choice(keys)

    def value():
        return bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 10, 100, 3000])))

    c = cairndb.Db(str(tmp_path / "cairn"), "write_buffer_size=64k")
    r = rocks(str(tmp_path / "rocks"))
    reads = divergences = 0
    try:
        for step in range(OPS):
            op = rng.random()
            if op < 0.35:
                k, v = key(), value()
                c[k] = v
                r[k] = v
            elif op < 0.45:
                k = key()
                del c[k]
                del r[k]
            elif op < 0.48:
                a, b = sorted([key(), key()])
                c.delete_range(a, b)
                r.delete_range(a, b)
            elif op < 0.53:
                cb, rb = cairndb.WriteBatch(), rocksdict.WriteBatch(raw_mode=True)
                for _ in range(rng.randint(1, 5)):
                    k = key()
                    if rng.random() < 0.7:
                        v = value()
                        cb.put(k, v)
                        rb.put(k, v)
                    else:
                        cb.delete(k)
                        rb.delete(k)
                c.write(cb)
                r.write(rb)
            elif op < 0.75:
                k = key()
                reads += 1
                if c.get(k) != r.get(k):
                    divergences += 1
            elif op < 0.8:
                ks = [key() for _ in range(rng.randint(1, 8))]
                reads += 1
                if c.multi_get(ks) != [r.get(k) for k in ks]:
                    divergences += 1
            elif op < 0.97:
                a, b = (sorted([key(), key()]) + [None, None])[: 2]
                if rng.random() < 0.2:
                    a = None
                if rng.random() < 0.2:
                    b = None
                reverse = rng.random() < 0.5
                reads += 1
                if rng.random() < 0.3:
                    # A prefix scan: [p, the first key after every key starting with p).
                    p = key()[: rng.randint(0, 3)]
                    end = prefix_end(p)
                    if list(c.items(prefix=p, reverse=reverse)) != rocks_scan(r, p, end, reverse):
                        divergences += 1
                elif list(c.items(a, b, reverse=reverse)) != rocks_scan(r, a, b, reverse):
                    divergences += 1
            elif op < 0.99:
                c.flush()
                r.flush()
            else:
                c.close()
                r.close()
                c = cairndb.Db(str(tmp_path / "cairn"), "write_buffer_size=64k")
                r = rocks(str(tmp_path / "rocks"))
        reads += 1
        if list(c.items()) != rocks_scan(r, None, None, False):
            divergences += 1
    finally:
        c.close()
        r.close()
    print(f"DIFFERENTIAL seed={seed} ops={OPS} reads={reads} divergences={divergences}")
    assert reads > 0
    assert divergences == 0
