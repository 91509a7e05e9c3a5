"""The Python API of cairndb: the mapping, ranges, batches, snapshots, column families,
options, errors, pickle mode, close, and transactions."""

import os
import pathlib

import pytest

import cairndb


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "db")


@pytest.fixture
def db(path):
    with cairndb.Db(path) as d:
        yield d


def test_mapping(db):
    db[b"a"] = b"1"
    db[b"b"] = b""
    assert db[b"a"] == b"1"
    assert db[b"b"] == b"", "an empty value is a value"
    assert b"a" in db and b"b" in db and b"c" not in db
    with pytest.raises(KeyError):
        db[b"c"]
    assert db.get(b"c") is None
    assert db.get(b"c", b"default") == b"default"
    del db[b"a"]
    assert b"a" not in db
    del db[b"never-there"]  # a blind delete, as in RocksDB
    db.put(b"s", b"synced", sync=True)
    db.put(b"w", b"no wal", disable_wal=True)
    db.delete(b"w", sync=True)
    assert db[b"s"] == b"synced" and b"w" not in db


def test_bytes_only_without_pickle(db):
    with pytest.raises(TypeError):
        db["str key"] = b"v"
    with pytest.raises(TypeError):
        db[b"k"] = 5


def test_ranges_prefixes_and_direction(db):
    for k in [b"a1", b"a2", b"a3", b"b1", b"b2", b"c\xff", b"c\xff\xff"]:
        db[k] = k.upper()
    assert list(db) == [b"a1", b"a2", b"a3", b"b1", b"b2", b"c\xff", b"c\xff\xff"]
    assert list(db.keys(b"a2", b"b2")) == [b"a2", b"a3", b"b1"]
    assert list(db.keys(b"a2", b"b2", reverse=True)) == [b"b1", b"a3", b"a2"]
    assert list(db.items(prefix=b"b")) == [(b"b1", b"B1"), (b"b2", b"B2")]
    assert list(db.values(prefix=b"a", reverse=True)) == [b"A3", b"A2", b"A1"]
    assert list(db.keys(prefix=b"c\xff")) == [b"c\xff", b"c\xff\xff"]
    assert list(db.keys(start=b"b")) == [b"b1", b"b2", b"c\xff", b"c\xff\xff"]
    assert list(db.keys(end=b"a2")) == [b"a1"]
    with pytest.raises(ValueError):
        db.keys(b"a", prefix=b"a")
    # Many entries: iteration crosses several read-ahead batches.
    for i in range(1000):
        db[b"n%04d" % i] = b"%d" % i
    assert [int(v) for v in db.values(prefix=b"n")] == list(range(1000))
    assert [int(v) for v in db.values(prefix=b"n", reverse=True)] == list(range(999, -1, -1))


def test_delete_range_and_multi_get(db):
    for i in range(10):
        db[b"k%d" % i] = b"v%d" % i
    db.delete_range(b"k3", b"k7")
    assert list(db.keys()) == [b"k0", b"k1", b"k2", b"k7", b"k8", b"k9"]
    assert db.multi_get([b"k0", b"k4", b"k9"]) == [b"v0", None, b"v9"]
    assert db.multi_get(iter([])) == []


def test_write_batch_is_atomic(db):
    cf = db.create_column_family("other")
    b = cairndb.WriteBatch()
    b.put(b"x", b"1")
    b.put(b"y", b"2")
    b.delete(b"x")
    b.put(b"in-cf", b"3", cf=cf)
    b.delete_range(b"a", b"b")
    assert len(b) == 5
    db.write(b)
    assert db.get(b"x") is None and db[b"y"] == b"2" and cf[b"in-cf"] == b"3"
    assert b"in-cf" not in db
    b.clear()
    assert len(b) == 0
    bad = cairndb.WriteBatch()
    with pytest.raises(cairndb.InvalidArgumentError):
        bad.put(b"k" * (8 * 1024 * 1024 + 1), b"v")  # over the 8 MiB key limit
    with pytest.raises(ValueError):
        db.write(cairndb.WriteBatch(pickle=True))


def test_snapshots(db):
    db[b"k"] = b"old"
    with db.snapshot() as snap:
        db[b"k"] = b"new"
        db[b"k2"] = b"later"
        assert db.get(b"k", snapshot=snap) == b"old"
        assert db.get(b"k") == b"new"
        assert list(db.keys(snapshot=snap)) == [b"k"]
        assert db.multi_get([b"k", b"k2"], snapshot=snap) == [b"old", None]
        assert snap.sequence_number < db.latest_sequence_number()
    with pytest.raises(cairndb.ClosedError):
        db.get(b"k", snapshot=snap)


def test_snapshot_of_another_database_is_refused(db, tmp_path):
    with cairndb.Db(str(tmp_path / "other")) as other:
        snap = other.snapshot()
        with pytest.raises(cairndb.InvalidArgumentError):
            db.get(b"k", snapshot=snap)


def test_column_families(path):
    with cairndb.Db(path) as db:
        cf = db.create_column_family("users", "write_buffer_size=1m")
        assert cf.name == "users"
        cf[b"alice"] = b"1"
        assert b"alice" not in db
        assert db.column_families() == ["default", "users"]
        with pytest.raises(cairndb.InvalidArgumentError):
            db.create_column_family("users")
        with pytest.raises(cairndb.NotFoundError):
            db.column_family("nope")
        tmp = db.create_column_family("tmp")
        tmp[b"k"] = b"v"
        db.drop_column_family("tmp")
        with pytest.raises(cairndb.Error):
            tmp[b"k"] = b"v"
        assert list(cf.items()) == [(b"alice", b"1")]
        cf.flush()
        cf.compact_range()
        assert cf.property("rocksdb.num-files-at-level0") is not None
    with cairndb.Db(path) as db:
        assert db.column_families() == ["default", "users"]
        assert db.column_family("users")[b"alice"] == b"1"


def test_reopen_persists_and_options(path):
    with cairndb.Db(path, "write_buffer_size=4m;compression=kNoCompression") as db:
        db[b"k"] = b"v"
        db.flush()
        db.compact_range(b"a", b"z")
        assert db.property("rocksdb.estimate-num-keys") == "1"
        assert db.property("rocksdb.no-such-property") is None
    with cairndb.Db(path) as db:
        assert db[b"k"] == b"v"
    with pytest.raises(cairndb.InvalidArgumentError):
        cairndb.Db(path, "no_such_option=1")
    with pytest.raises(cairndb.InvalidArgumentError):
        cairndb.Db(path, "write_buffer_size=lots")
    with pytest.raises(cairndb.InvalidArgumentError):
        cairndb.Db(path + "-missing", create_if_missing=False)


def test_open_twice_is_an_io_error(db, path):
    # RocksDB reports a held LOCK as an IOError; so does CairnDB.
    with pytest.raises(cairndb.IoError, match="lock"):
        cairndb.Db(path)


def test_read_only_beside_a_writer(db, path):
    db[b"k"] = b"v"
    # No lock: it opens while `db` holds the database, and sees it as of its open.
    ro = cairndb.Db(path, read_only=True)
    db[b"later"] = b"w"
    assert ro.get(b"k") == b"v" and ro.get(b"later") is None
    with pytest.raises(cairndb.NotSupportedError, match="read-only"):
        ro[b"x"] = b"y"
    ro.close()
    assert db[b"later"] == b"w"


def test_close(path):
    db = cairndb.Db(path)
    db[b"k"] = b"v"
    it = db.items()
    cf = db.create_column_family("cf")
    snap = db.snapshot()
    assert not db.closed
    db.close()
    db.close()  # twice is fine
    assert db.closed
    for call in (
        lambda: db[b"k"],
        lambda: db.put(b"k", b"v"),
        lambda: next(it),
        lambda: cf.get(b"k"),
        lambda: db.get(b"k", snapshot=snap),
        lambda: db.snapshot(),
    ):
        with pytest.raises(cairndb.ClosedError):
            call()
    with cairndb.Db(path) as again:  # the directory was released
        assert again[b"k"] == b"v"


def test_checkpoint(db, tmp_path):
    db[b"k"] = b"v"
    cp = str(tmp_path / "checkpoint")
    db.checkpoint(cp)
    with pytest.raises(cairndb.InvalidArgumentError):
        db.checkpoint(cp)  # it exists now
    with cairndb.Db(cp) as copy:
        assert copy[b"k"] == b"v"


def test_pickle_mode(path):
    with cairndb.Db(path, pickle=True) as db:
        db["text"] = {"a": [1, 2]}
        db[42] = 3.5
        db[(1, "t")] = None
        assert db["text"] == {"a": [1, 2]}
        assert db[42] == 3.5
        assert (1, "t") in db and db[(1, "t")] is None
        b = cairndb.WriteBatch(pickle=True)
        b.put("batched", [1])
        db.write(b)
        assert db["batched"] == [1]
        assert sorted(map(repr, db.keys())) == sorted(map(repr, ["text", 42, (1, "t"), "batched"]))
        with pytest.raises(ValueError):
            db.write(cairndb.WriteBatch())
    with cairndb.Db(path) as raw:  # stored as pickles
        assert all(isinstance(k, bytes) for k in raw.keys())


def test_corruption_is_reported(path):
    with cairndb.Db(path, "compression=kNoCompression") as db:
        for i in range(200):
            db[b"key%03d" % i] = b"value%03d" % i * 10
        db.flush()
    (sst,) = [p for p in pathlib.Path(path).iterdir() if p.suffix == ".sst"]
    data = bytearray(sst.read_bytes())
    data[100] ^= 0xFF  # inside the first data block
    sst.write_bytes(bytes(data))
    with cairndb.Db(path) as db:
        with pytest.raises(cairndb.CorruptionError):
            list(db.items())


def test_exception_hierarchy():
    assert issubclass(cairndb.CorruptionError, cairndb.Error)
    assert issubclass(cairndb.DeadlockError, cairndb.BusyError)
    assert issubclass(cairndb.Error, Exception)


def test_transactions(path):
    with cairndb.TransactionDb(path, lock_timeout_ms=0) as db:
        db[b"acct"] = b"100"
        with db.transaction() as t:
            assert t.get_for_update(b"acct") == b"100"
            t[b"acct"] = b"90"
            t.put(b"log", b"-10")
            assert t[b"acct"] == b"90"
            assert db[b"acct"] == b"100", "invisible until commit"
            other = db.transaction()
            with pytest.raises(cairndb.TimedOutError):
                other.put(b"acct", b"0")  # locked by t; no wait
            other.rollback()
        assert db[b"acct"] == b"90" and db[b"log"] == b"-10"
        with pytest.raises(RuntimeError):
            with db.transaction() as t:
                t[b"acct"] = b"0"
                raise RuntimeError("rolled back")
        assert db[b"acct"] == b"90"
        t = db.transaction()
        t.put(b"a", b"1")
        t.set_savepoint()
        t.put(b"b", b"2")
        t.rollback_to_savepoint()
        with pytest.raises(cairndb.NotFoundError):
            t.rollback_to_savepoint()
        assert t.multi_get([b"a", b"b", b"acct"]) == [b"1", None, b"90"]
        del t[b"acct"]
        assert b"acct" not in t
        t.commit()
        with pytest.raises(cairndb.ClosedError):
            t.commit()
        assert db.get(b"a") == b"1" and b"b" not in db and b"acct" not in db
        # With a snapshot, a write by someone else after it makes the commit fail.
        t = db.transaction(snapshot=True)
        db[b"raced"] = b"outside"
        with pytest.raises(cairndb.BusyError):
            t.put(b"raced", b"inside")
        t.rollback()
        cf = db.create_column_family("cf")
        with db.transaction() as t:
            t.put(b"k", b"v", cf=cf)
            assert t.get(b"k", cf=cf) == b"v" and t.get(b"k") is None
        assert cf[b"k"] == b"v"


def test_review_mends(tmp_path):
    path = str(tmp_path / "db")
    with pytest.raises(cairndb.InvalidArgumentError):
        cairndb.Db(path, "create_if_missing=false")  # the string's setting is honoured
    with cairndb.Db(path) as db, cairndb.Db(str(tmp_path / "other")) as other:
        cf = other.create_column_family("cf")
        b = cairndb.WriteBatch()
        b.put(b"k", b"v", cf=cf)
        with pytest.raises(cairndb.InvalidArgumentError):
            db.write(b)  # the family is another database's
        assert b"k" not in db
        with pytest.raises(cairndb.InvalidArgumentError):
            db.create_column_family("x", "max_open_files=10")  # not a family option
        with pytest.raises(cairndb.InvalidArgumentError):
            db.put(b"k", b"v", sync=True, disable_wal=True)
        with pytest.raises(KeyError):
            cf[b"missing"]
        assert isinstance(db.path, str) and db.path == path
    with cairndb.Db(str(tmp_path / "p"), pickle=True) as db:
        with pytest.raises(ValueError):
            db.keys(prefix="a")


def test_snapshot_transactions_read_at_their_snapshot(path):
    with cairndb.TransactionDb(path, lock_timeout_ms=0) as db:
        db[b"k"] = b"old"
        t = db.transaction(snapshot=True)
        db[b"k"] = b"new"
        assert t.get(b"k") == b"old"
        assert t.multi_get([b"k"]) == [b"old"]
        with pytest.raises(KeyError):
            t[b"missing"]
        t.rollback()
        with pytest.raises(cairndb.InvalidArgumentError):
            db.transaction(lock_timeout_ms=-1)
        with pytest.raises(cairndb.NotSupportedError):
            db.delete_range(b"a", b"b")


def test_a_damaged_table_footer_is_corruption(path):
    with cairndb.Db(path) as db:
        db[b"k"] = b"v"
        db.flush()
    (sst,) = [p for p in pathlib.Path(path).iterdir() if p.suffix == ".sst"]
    data = bytearray(sst.read_bytes())
    data[-1] ^= 0xFF  # the footer's magic number
    sst.write_bytes(bytes(data))
    with pytest.raises(cairndb.CorruptionError):
        with cairndb.Db(path) as db:
            db.get(b"k")
