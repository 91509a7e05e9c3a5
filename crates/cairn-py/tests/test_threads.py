"""cairndb from several Python threads: concurrent writers and readers see consistent data, and
a call that waits inside the engine releases the GIL so other threads go on."""

import threading

import cairndb


def test_concurrent_writers_and_readers(tmp_path):
    with cairndb.Db(str(tmp_path / "db"), "write_buffer_size=256k") as db:
        errors = []

        def writer(t):
            try:
                for i in range(2000):
                    db[b"t%d-%05d" % (t, i)] = b"%d" % i
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        def reader():
            try:
                for _ in range(20):
                    for k, v in db.items(prefix=b"t0-"):
                        assert int(v) == int(k.split(b"-")[1])
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
        threads += [threading.Thread(target=reader) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        for t in range(4):
            assert len(list(db.keys(prefix=b"t%d-" % t))) == 2000


def test_a_lock_wait_releases_the_gil(tmp_path):
    # Thread B waits inside the engine for a lock A holds. The main thread can commit A only if
    # B's wait released the GIL; otherwise B times out after 10 s and fails.
    with cairndb.TransactionDb(str(tmp_path / "db"), lock_timeout_ms=10_000) as db:
        a = db.transaction()
        a.put(b"k", b"a")
        waiting = threading.Event()
        result = []

        def b():
            t = db.transaction()
            waiting.set()
            try:
                result.append(t.get_for_update(b"k"))
                t.commit()
            except Exception as e:
                result.append(e)

        thread = threading.Thread(target=b)
        thread.start()
        waiting.wait()
        a.commit()
        thread.join()
        assert result == [b"a"], result
