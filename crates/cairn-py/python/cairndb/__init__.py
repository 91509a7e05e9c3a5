"""CairnDB: an embedded, persistent key-value store (a log-structured merge tree) with
RocksDB's options and semantics.

>>> import cairndb, tempfile
>>> with cairndb.Db(tempfile.mkdtemp()) as db:
...     db[b"apple"] = b"red"
...     db.get(b"apple")
b'red'

Everything is implemented in the extension module ``cairndb._cairndb``; see ``Db``.
"""

from ._cairndb import (
    BusyError,
    ClosedError,
    ColumnFamily,
    CorruptionError,
    Db,
    DeadlockError,
    Error,
    ExpiredError,
    InvalidArgumentError,
    IoError,
    Iter,
    NotFoundError,
    NotSupportedError,
    Snapshot,
    TimedOutError,
    Transaction,
    TransactionDb,
    WriteBatch,
    __version__,
)

__all__ = [
    "BusyError",
    "ClosedError",
    "ColumnFamily",
    "CorruptionError",
    "Db",
    "DeadlockError",
    "Error",
    "ExpiredError",
    "InvalidArgumentError",
    "IoError",
    "Iter",
    "NotFoundError",
    "NotSupportedError",
    "Snapshot",
    "TimedOutError",
    "Transaction",
    "TransactionDb",
    "WriteBatch",
    "__version__",
]
