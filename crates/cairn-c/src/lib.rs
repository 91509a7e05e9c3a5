//! CairnDB's C library: a subset of RocksDB's C API (`rocksdb/c.h`, RocksDB 11.8) with RocksDB's
//! function names, signatures and conventions, over CairnDB. A C program written against
//! RocksDB's header that uses only these functions compiles against `include/cairndb/c.h` and
//! links with `libcairndb_c` (`.so` or `.a`) instead of `librocksdb`.
//!
//! Where each part lives:
//! - `util.rs`: the error convention, C strings and buffers handed to the caller.
//! - `options.rs`: `rocksdb_options_*` (database and column-family options) and
//!   `rocksdb_get_options_from_string`.
//! - `table_options.rs`: `rocksdb_block_based_options_*`, block caches, Bloom filter policies.
//! - `read_write_options.rs`: read, write, flush and compaction options.
//! - `callbacks.rs`: comparators, merge operators and prefix extractors made of C callbacks.
//! - `db.rs`: open, close, reads, writes, snapshots, properties, flush and compaction.
//! - `column_family.rs`: column-family handles and the `*_cf` calls.
//! - `batch.rs`: `rocksdb_writebatch_*`.
//! - `iterator.rs`: `rocksdb_iter_*`.
//! - `checkpoint.rs`: `rocksdb_checkpoint_*`.
//! - `transaction.rs`: `rocksdb_transactiondb_*`, `rocksdb_transaction_*` and the optimistic
//!   variants.
//!
//! # Contract (as RocksDB's C API documents it)
//! 1. Errors: a function that can fail takes `char** errptr`. On failure it stores a string made
//!    with `malloc` (freeing what `*errptr` held before); on success it leaves `*errptr` alone.
//!    The caller frees the string with `rocksdb_free` (or `free`). The string starts with
//!    RocksDB's status name (`Invalid argument: `, `Corruption: `, `NotFound: `, ...).
//! 2. Ownership: every `*_create` (and `rocksdb_open`, `rocksdb_create_iterator`, ...) returns an
//!    object the caller releases with the matching `*_destroy` (`rocksdb_close`,
//!    `rocksdb_iter_destroy`, `rocksdb_release_snapshot`, ...), exactly once. Values returned as
//!    `char*` are `malloc`ed copies the caller frees. Pointers returned as `const char*` with a
//!    length (iterator keys, pinned values, batch data) stay valid until the object they come
//!    from changes or is destroyed. As in RocksDB, the options take ownership of a merge
//!    operator, prefix extractor or filter policy set on them (do not destroy those), but only
//!    borrow a comparator (destroy it after every database using it is closed).
//! 3. Lifetimes: iterators, snapshots, column-family handles, checkpoints and transactions must
//!    be destroyed before the database they came from is closed (RocksDB's rule; breaking it is
//!    undefined behaviour in both libraries).
//! 4. Threads: a database (`rocksdb_t`, `rocksdb_transactiondb_t`, ...) may be used from many
//!    threads at once; every other object (options, batches, iterators, transactions) by one
//!    thread at a time.
//! 5. Options are honoured or refused. A setter for which CairnDB has no equivalent is not
//!    provided (the header lists what is missing). A setter given a value outside the option's
//!    range records the mistake, and `rocksdb_open` (and the other opens) then fail with an
//!    `Invalid argument` naming the setter and value, as validation of the option would.
//! 6. Pointer arguments are valid objects made by this library (or NULL where RocksDB allows
//!    NULL); byte arguments are `(pointer, length)` pairs and need no terminating NUL; names
//!    and paths are NUL-terminated UTF-8. Nothing here checks a pointer's provenance: as with
//!    RocksDB, a dangling or foreign pointer is undefined behaviour. That single caller
//!    obligation is the safety contract of every `unsafe extern "C"` function below.

// Every exported function is `unsafe extern "C"` with the one safety contract above (item 6);
// repeating it in a `# Safety` section and a `SAFETY:` comment on each of several hundred
// pointer dereferences would add nothing a reader can check.
#![allow(
    unsafe_op_in_unsafe_fn,
    clippy::missing_safety_doc,
    clippy::undocumented_unsafe_blocks,
    missing_debug_implementations,
    non_camel_case_types
)]

mod batch;
mod callbacks;
mod checkpoint;
mod column_family;
mod db;
mod iterator;
mod options;
mod read_write_options;
mod table_options;
mod transaction;
mod util;

pub use batch::*;
pub use callbacks::*;
pub use checkpoint::*;
pub use column_family::*;
pub use db::*;
pub use iterator::*;
pub use options::*;
pub use read_write_options::*;
pub use table_options::*;
pub use transaction::*;
pub use util::rocksdb_free;
