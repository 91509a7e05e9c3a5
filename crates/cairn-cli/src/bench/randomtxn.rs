//! db_bench's `randomtransaction` (`Benchmark::RandomTransaction`, which drives RocksDB's
//! `RandomTransactionInserter` of `test_util/transaction_test_util.cc`) and the check db_bench
//! runs after it (`RandomTransactionVerify`).
//!
//! # What a transaction does
//! It draws one increment in `1..=100`, then visits the `--transaction_sets` sets in a shuffled
//! order and, in each, draws a key number in `0..--num`, reads that key (absent counts as 0) and
//! writes back the value plus the increment. A set's keys are its number from 1 written as
//! `%.4u` (`0001`, `0002`, ...) followed by the key number in decimal (`00017` is key 7 of the
//! first set); values are decimal integers. A transaction that commits adds the same increment
//! to one key of every set, so the sums of all sets stay equal: [`verify`] checks that.
//!
//! As db_bench, three ways to run it, after the database the run opened:
//! - No transaction flag (db_bench's `DBInsert`): plain reads, and the increments written as one
//!   write batch. Nothing is verified: concurrent threads lose updates, as in db_bench.
//! - `--transaction_db` (`TransactionDBInsert`): the transaction is named `txn<thread>-<n>`
//!   (db_bench hashes the thread's id where this has its number), takes a snapshot (when
//!   `--transaction_set_snapshot` gave it none; otherwise a new one half of the time) and reads
//!   at it. Each key is read with `GetForUpdate` or `Get` (half each), then removed with
//!   `SingleDelete` (sets whose 0-based number is not a multiple of 4) or `Delete`, then put.
//!   A lock timeout or a write conflict with the snapshot aborts the transaction: it is rolled
//!   back and counted in `aborts`. Nine transactions in ten that reach their end are prepared
//!   (two-phase commit), and one in 20 of those puts `"cat"` = `"dog"` into its commit-time
//!   batch. One transaction in 20 that reaches its end is rolled back instead of committed,
//!   and counts as a success, as in db_bench.
//! - `--optimistic_transaction_db` (`OptimisticTransactionDBInsert`, default transaction
//!   options): the same reads and writes, no snapshot; a conflict found at commit (`Busy`) is an
//!   abort.
//!
//! Any other error stops the benchmark (db_bench prints "Unexpected error" and aborts).
//!
//! # Random draws
//! They come from the thread's generator in db_bench's order (`Random64::Next` and `OneIn`, see
//! [`Random64::one_in`]), so a seed gives the same increments, keys and choices as db_bench built
//! with libstdc++. db_bench shuffles the sets with a generator seeded from `std::random_device`;
//! here the shuffle's generator is seeded from the thread's seed, so runs repeat exactly. The
//! order only decides which set gets which of the transaction's random key numbers.
//!
//! # What differs from db_bench
//! A release build of db_bench 11.9 cannot run `--transaction_db`: the transaction is named
//! inside an `assert` (compiled out under `NDEBUG`), so `Prepare` fails with "Cannot prepare a
//! transaction that has not been named", which db_bench prints and goes on from (RocksDB issue
//! 13201); but when the commit-time put was drawn, the commit then fails ("Commit-time batch
//! contains values that will not be committed") and db_bench stops with "Unexpected error", on
//! average after about two dozen transactions. Debug builds prepare, and fail an assertion with
//! several threads (RocksDB issue 13829). This benchmark does what db_bench means to do: name,
//! prepare, commit.
//!
//! With `--engine rocksdb`, the `rocksdb` crate has no commit-time batch: those puts (one
//! transaction in 200) are skipped and counted in the note (`commit_time_puts_skipped`).
//!
//! # `--transaction_read_only` (CairnDB's flag)
//! With `get` or `get_for_update`, each transaction only reads: one key of every set, all with
//! that call (the draw that picks between them is still made), then commits, without a
//! prepare or a rollback draw. The sets' sums do not change. It prices a read's lock.
//!
//! CairnDB's optimistic transactions have no `SingleDelete`; a `Delete` stands for it (same
//! conflict tracking, and the put that follows leaves the same value).
//!
//! # When the check can fail on a correct engine
//! With `--optimistic_transaction_db` and more than one thread it can, in RocksDB as here:
//! db_bench begins optimistic transactions with default options (no snapshot), and a key read
//! with a plain `Get` is tracked for the commit's conflict check only from its `Delete`, after
//! the read, so a commit of another thread in between is not seen and its increment is lost.
//! RocksDB's own stress test of this inserter sets `set_snapshot` for that reason. Pessimistic
//! transactions always read at a snapshot that the lock of each written key is checked against,
//! so there the check passes on any correct engine, as it does with a single thread.

use std::io::Write as _;
use std::time::Instant;

use rand_mt::Mt;

use super::drivers::{readwrites, Ctx};
use super::engine::{
    BenchBatch, BenchEngine, BenchError, BenchIter, BenchTxn, Result, TransactionDbKind, TxnOptions,
};
use super::generator::{unique_random_order, Random64};
use super::report::OpKind;
use super::threads::{OpBudget, ThreadState};
use super::{BenchArgs, TxnReadOnly};

/// The most sets `--transaction_sets` may ask for: the set prefix has four digits.
pub const MAX_SETS: u64 = 9999;

/// Writes key number `n` of set `set` (0-based) into `key`: db_bench's `[SET#][random#]`.
pub fn set_key(set: u64, n: u64, key: &mut Vec<u8>) {
    key.clear();
    write!(key, "{}{n}", set_prefix(set)).expect("writing to a Vec cannot fail");
}

/// The four-digit prefix of set `set` (0-based): `%.4u` of `set + 1`.
pub fn set_prefix(set: u64) -> String {
    format!("{:04}", set + 1)
}

/// A stored counter as db_bench reads it (`std::stoull`: leading blanks, then decimal digits);
/// `None` when it holds no number, or 0 or `u64::MAX`, which no transaction writes.
fn counter(value: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(value).ok()?.trim_start();
    let text = text.strip_prefix('+').unwrap_or(text);
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = text[..digits].parse().ok()?;
    (n != 0 && n != u64::MAX).then_some(n)
}

/// A value read by a transaction or a plain read: its counter, 0 when absent.
fn read_counter(value: Option<&[u8]>) -> Result<u64> {
    match value {
        None => Ok(0),
        Some(v) => counter(v).ok_or_else(|| {
            BenchError::Inconsistent(format!(
                "Get returned unexpected value: {}",
                String::from_utf8_lossy(v)
            ))
        }),
    }
}

/// What db_bench counts an ended transaction as: its `Status` is OK or not.
type Outcome = std::result::Result<(), BenchError>;

/// One thread's `RandomTransactionInserter`.
struct Inserter<'c, 'a, E: BenchEngine> {
    ctx: &'c Ctx<'a, E>,
    kind: TransactionDbKind,
    wo: E::WriteOptions,
    txn_options: TxnOptions,
    num_keys: u64,
    num_sets: u64,
    /// The generator of the set order (db_bench: `std::random_device`).
    set_order: Mt,
    key: Vec<u8>,
    /// `--transaction_read_only`.
    read_only: TxnReadOnly,
    /// The thread's number, in transaction names.
    tid: usize,
    /// The number of the next transaction's name (db_bench's `txn_id_`).
    txn_id: u64,
    /// Commit-time puts the engine could not make (see the module documentation).
    commit_time_skipped: u64,
    /// Transactions (or batches) that ended with an OK status, rollbacks included.
    successes: u64,
    /// Transactions aborted by a conflict or a lock timeout (db_bench's `aborts`).
    failures: u64,
    /// Bytes of the keys and values put, aborted transactions included, as db_bench counts.
    bytes: u64,
}

impl<E: BenchEngine> Inserter<'_, '_, E> {
    /// One transaction (or batch), as db_bench's three `*Insert` methods.
    ///
    /// # Errors
    /// An unexpected error (not a conflict, lock timeout or expiry).
    fn insert(&mut self, rng: &mut Random64) -> Result<()> {
        let engine = self.ctx.engine;
        let outcome = match self.kind {
            TransactionDbKind::None => self.do_insert(rng, None)?,
            TransactionDbKind::Pessimistic => {
                let mut txn = engine.begin_transaction(&self.wo, &self.txn_options)?;
                txn.set_name(&format!("txn{}-{}", self.tid, self.txn_id))?;
                self.txn_id += 1;
                // A snapshot when set_snapshot took none; otherwise a new one half of the time.
                if !txn.has_snapshot() || rng.one_in(2) {
                    txn.set_snapshot()?;
                }
                self.do_insert(rng, Some(txn.as_mut()))?
            }
            TransactionDbKind::Optimistic => {
                let mut txn = engine.begin_transaction(&self.wo, &TxnOptions::default())?;
                self.do_insert(rng, Some(txn.as_mut()))?
            }
        };
        match outcome {
            Ok(()) => self.successes += 1,
            Err(_) => self.failures += 1,
        }
        Ok(())
    }

    /// db_bench's `DoInsert`: the reads, increments and the commit (or write) of one
    /// transaction. The outer error stops the benchmark; the inner one is an abort.
    fn do_insert(
        &mut self,
        rng: &mut Random64,
        mut txn: Option<&mut (dyn BenchTxn + '_)>,
    ) -> Result<Outcome> {
        let engine = self.ctx.engine;
        let optimistic = self.kind == TransactionDbKind::Optimistic;
        let incr = rng.next_u64() % 100 + 1;
        let sets = unique_random_order(self.num_sets, self.set_order.next_u32());
        let mut batch = engine.new_batch();
        let mut aborted = None;
        for set in sets {
            let n = rng.next_u64() % self.num_keys;
            // Drawn with a transaction only (db_bench's `txn ? rand_->OneIn(2) : false`).
            let drawn = txn.is_some() && rng.one_in(2);
            let for_update = txn.is_some()
                && match self.read_only {
                    TxnReadOnly::None => drawn,
                    TxnReadOnly::Get => false,
                    TxnReadOnly::GetForUpdate => true,
                };
            set_key(set, n, &mut self.key);
            let read = match txn.as_deref_mut() {
                Some(t) if for_update => t.get_for_update(&self.key),
                Some(t) => t.get(&self.key),
                None => engine
                    .get(&self.key)
                    .map(|v| v.map(|v| v.as_ref().to_vec())),
            };
            let value = match read {
                Ok(v) => read_counter(v.as_deref())?,
                // Optimistic transactions take no locks: no error is expected before commit.
                Err(e) if !optimistic && (e.is_busy() || e.is_timed_out() || e.is_try_again()) => {
                    aborted = Some(e);
                    break;
                }
                Err(e) => return Err(e.context("Get returned an unexpected error")),
            };
            if self.read_only != TxnReadOnly::None {
                continue;
            }
            let sum = value.wrapping_add(incr).to_string();
            match txn.as_deref_mut() {
                Some(t) => {
                    let removed = if set % 4 != 0 {
                        t.single_delete(&self.key)
                    } else {
                        t.delete(&self.key)
                    };
                    match removed {
                        Ok(()) => {}
                        // Read without GetForUpdate: the key is locked only now, and may not be.
                        Err(e) if !for_update && (e.is_busy() || e.is_timed_out()) => {
                            aborted = Some(e);
                            break;
                        }
                        Err(e) => {
                            return Err(e.context("SingleDelete returned an unexpected error"))
                        }
                    }
                    t.put(&self.key, sum.as_bytes())
                        .map_err(|e| e.context("Put returned an unexpected error"))?;
                }
                None => batch.put(&self.key, sum.as_bytes())?,
            }
            self.bytes += (self.key.len() + sum.len()) as u64;
        }
        if let Some(e) = aborted {
            if let Some(t) = txn {
                t.rollback()?;
            }
            return Ok(Err(e));
        }
        let Some(t) = txn else {
            engine
                .write(&self.wo, batch)
                .map_err(|e| e.context("Write returned an unexpected error"))?;
            return Ok(Ok(()));
        };
        if self.read_only != TxnReadOnly::None {
            return match t.commit() {
                Ok(()) => Ok(Ok(())),
                Err(e) if e.is_busy() || e.is_timed_out() || e.is_try_again() => Ok(Err(e)),
                Err(e) => Err(e.context("Commit returned an unexpected error")),
            };
        }
        // db_bench prepares 9 in 10 pessimistic transactions, and puts "cat" into 1 in 20 of
        // their commit-time batches.
        if !optimistic && !rng.one_in(10) {
            t.prepare()
                .map_err(|e| e.context("Prepare returned an unexpected error"))?;
            if rng.one_in(20) && !t.commit_time_put(b"cat", b"dog")? {
                self.commit_time_skipped += 1;
            }
        }
        let ended = if rng.one_in(20) {
            t.rollback()
        } else {
            t.commit()
        };
        match ended {
            Ok(()) => Ok(Ok(())),
            // Optimistic transactions find their conflicts at commit.
            Err(e) if optimistic && (e.is_busy() || e.is_timed_out() || e.is_try_again()) => {
                Ok(Err(e))
            }
            // Pessimistic ones hold their locks: only expiry can fail them.
            Err(e) if !optimistic && e.is_expired() => Ok(Err(e)),
            Err(e) => Err(e.context("Commit returned an unexpected error")),
        }
    }
}

/// db_bench's `RandomTransaction` on one thread: `readwrites` transactions (`--num` unless
/// `--reads` or `--writes`), or for `--duration` seconds. Its note is
/// `( transactions:N aborts:M)`, or `( batches:N )` without transactions.
pub fn randomtransaction<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState) -> Result<()> {
    let args = ctx.args;
    let kind = args.transaction_kind();
    let mut budget = OpBudget::new(args.duration, readwrites(args));
    let mut inserter = Inserter {
        ctx,
        kind,
        wo: ctx.engine.write_options(ctx.mode)?,
        txn_options: args.txn_options(),
        num_keys: args.num,
        num_sets: args.transaction_sets,
        set_order: Mt::new(t.rng.clone().next_u64() as u32),
        key: Vec::new(),
        tid: t.tid,
        read_only: args.transaction_read_only,
        txn_id: 0,
        commit_time_skipped: 0,
        successes: 0,
        failures: 0,
        bytes: 0,
    };
    let mut transactions = 0u64;
    while !budget.done(1) {
        let started = Instant::now();
        inserter.insert(&mut t.rng)?;
        t.stats.finished_op(OpKind::Others, started, 0);
        transactions += 1;
    }
    debug_assert_eq!(inserter.successes + inserter.failures, transactions);
    let note = match kind {
        TransactionDbKind::None => format!("( batches:{transactions} )"),
        _ => format!(
            "( transactions:{transactions} aborts:{})",
            inserter.failures
        ),
    };
    t.stats.add_message(&note);
    if inserter.commit_time_skipped > 0 {
        t.stats.add_message(&format!(
            "( commit_time_puts_skipped:{} )",
            inserter.commit_time_skipped
        ));
    }
    t.stats.add_bytes(inserter.bytes);
    Ok(())
}

/// The header's words for `--transaction_read_only`: empty for db_bench's transactions.
pub fn read_only_note(args: &BenchArgs) -> String {
    match args.transaction_read_only {
        TxnReadOnly::None => String::new(),
        TxnReadOnly::Get => " read_only=get".to_string(),
        TxnReadOnly::GetForUpdate => " read_only=get_for_update".to_string(),
    }
}

/// True when [`verify`] cannot fail on a correct engine after randomtransaction ran with
/// `args` (see the module documentation): pessimistic transactions, or a single thread.
pub fn check_cannot_fail(args: &BenchArgs) -> bool {
    args.transaction_kind() == TransactionDbKind::Pessimistic || args.threads == 1
}

/// The line added under a failed check that a correct engine can fail (optimistic transactions
/// on several threads).
pub const OPTIMISTIC_RACE_NOTE: &str = "  note: optimistic transactions as db_bench runs them (no \
     snapshot) check a key read with Get only from its write on, so concurrent threads can lose \
     increments and fail this check on any engine, RocksDB included; the run does not fail";

/// The result of [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// Every set's sum equals the others.
    pub passed: bool,
    /// What db_bench prints: the first mismatch, if any, then `RandomTransactionVerify
    /// Success.` or `RandomTransactionVerify FAILED!!`.
    pub lines: Vec<String>,
    /// The sum of every set, by set number from 0, as far as the check went.
    pub totals: Vec<Option<u64>>,
}

/// db_bench's `RandomTransactionVerify` (RocksDB's `RandomTransactionInserter::Verify` with
/// db_bench's arguments: the latest state, no snapshot, an iterator per set): sums the counters
/// of each of `num_sets` sets, visited in an order shuffled with `order_seed`, and stops at the
/// first set whose sum differs from the previous one's, or at a value no transaction writes
/// (reported on stderr, as db_bench does).
///
/// # Errors
/// An iterator's error (db_bench ignores those; an engine error here is reported instead).
pub fn verify<E: BenchEngine>(engine: &E, num_sets: u64, order_seed: u32) -> Result<Verification> {
    let mut totals = vec![None; num_sets as usize];
    let mut previous: Option<(u64, u64)> = None;
    let mut lines = Vec::new();
    let mut passed = true;
    'sets: for set in unique_random_order(num_sets, order_seed) {
        let prefix = set_prefix(set);
        let mut it = engine.iter()?;
        it.seek(prefix.as_bytes());
        let mut total = 0u64;
        while it.valid() && it.key().starts_with(prefix.as_bytes()) {
            let Some(n) = counter(it.value()) else {
                eprintln!(
                    "Iter returned unexpected value: {}",
                    String::from_utf8_lossy(it.value())
                );
                passed = false;
                break 'sets;
            };
            total = total.wrapping_add(n);
            it.next();
        }
        it.status()?;
        totals[set as usize] = Some(total);
        if let Some((prev_set, prev_total)) = previous {
            if total != prev_total {
                lines.push(format!(
                    "RandomTransactionVerify found inconsistent totals using pointlookup? 0 \
                     Set[{prev_set}]: {prev_total}, Set[{set}]: {total} at snapshot 0"
                ));
                passed = false;
                break;
            }
        }
        previous = Some((set, total));
    }
    lines.push(
        if passed {
            "RandomTransactionVerify Success."
        } else {
            "RandomTransactionVerify FAILED!!"
        }
        .to_string(),
    );
    Ok(Verification {
        passed,
        lines,
        totals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_set_prefix_then_the_decimal_key_number() {
        let mut key = Vec::new();
        set_key(0, 17, &mut key);
        assert_eq!(key, b"000117");
        set_key(41, 0, &mut key);
        assert_eq!(key, b"00420");
        set_key(MAX_SETS - 1, 123_456, &mut key);
        assert_eq!(key, b"9999123456");
    }

    #[test]
    fn counters_parse_as_stoull_and_refuse_what_no_transaction_writes() {
        assert_eq!(counter(b"42"), Some(42));
        assert_eq!(counter(b"  7xyz"), Some(7));
        assert_eq!(counter(b"+9"), Some(9));
        assert_eq!(counter(b"0"), None);
        assert_eq!(counter(b"18446744073709551615"), None);
        assert_eq!(counter(b"18446744073709551616"), None, "out of range");
        assert_eq!(counter(b"abc"), None);
        assert_eq!(counter(b""), None);
        assert_eq!(read_counter(None).expect("absent"), 0);
        let err = read_counter(Some(b"0")).expect_err("zero");
        assert!(
            err.to_string().contains("Get returned unexpected value: 0"),
            "{err}"
        );
    }
}
