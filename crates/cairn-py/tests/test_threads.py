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
    # Thread B waits inside the engine for a lock A holds. The main thread sees B waiting (it can
    # run only because B's wait released the GIL) and then commits A, which lets B go on. Were
    # the GIL held, the main thread would not run until B timed out, and B would fail.
    with cairndb.TransactionDb(str(tmp_path / "db"), lock_timeout_ms=30_000) as db:
        a = db.transaction()
        a.put(b"k", b"a")
        result = []

        def b():
            t = db.transaction()
            try:
                result.append(t.get_for_update(b"k"))
                t.commit()
            except Exception as e:
                result.append(e)

        thread = threading.Thread(target=b)
        thread.start()
        while not db.waiting_transactions():
            assert thread.is_alive(), result
        a.commit()
        thread.join(timeout=60)
        assert not thread.is_alive()
        assert result == [b"a"], result


def test_two_threads_on_one_transaction_do_not_deadlock(tmp_path):
    # While thread B's call waits for a lock inside the engine, the main thread calls the same
    # transaction object; it must wait for B's call without holding the GIL.
    with cairndb.TransactionDb(str(tmp_path / "db"), lock_timeout_ms=30_000) as db:
        a = db.transaction()
        a.put(b"k", b"a")
        t = db.transaction()
        result = []
        thread = threading.Thread(target=lambda: result.append(t.get_for_update(b"k")))
        thread.start()
        while not db.waiting_transactions():
            assert thread.is_alive()
        blocked = []
        other = threading.Thread(target=lambda: blocked.append(t.get(b"zz", b"none")))
        other.start()
        a.commit()  # the main thread runs while both threads wait
        thread.join(timeout=60)
        other.join(timeout=60)
        assert not thread.is_alive() and not other.is_alive()
        assert result == [b"a"] and blocked == [b"none"]
        t.commit()
