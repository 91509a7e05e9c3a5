//! The drivers against a model engine (a `BTreeMap` that logs every call), so each benchmark's
//! calls, keys, durability and counts can be checked exactly against db_bench's definition.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clap::Parser;

use super::*;
use crate::bench::engine::{BenchBatch, BenchIter};
use crate::bench::generator::Random64;
use crate::bench::randomtxn;

/// One call the drivers made.
#[derive(Debug, Clone, PartialEq)]
enum Call {
    Put(u64, WriteMode),
    Delete(u64, WriteMode),
    /// A batch: its puts and deletes (key, is_put).
    Write(Vec<(u64, bool)>, WriteMode),
    Get(u64),
    /// A read of a text key (randomtransaction's `[SET#][random#]` keys).
    GetText(String),
    /// A batch of puts of text keys, with their values.
    WriteText(Vec<(String, String)>, WriteMode),
    MultiGet(Vec<u64>),
    Iter,
    Flush,
    Compact,
    WaitForCompaction,
}

/// A closed model database's contents.
type Stored = BTreeMap<Vec<u8>, Vec<u8>>;

thread_local! {
    /// Calls of the engines opened on this thread.
    static CALLS: RefCell<Vec<Call>> = const { RefCell::new(Vec::new()) };
    /// Contents of closed model databases by directory, as if persisted.
    static STORED: RefCell<HashMap<PathBuf, Stored>> =
        RefCell::new(HashMap::new());
}

fn take_calls() -> Vec<Call> {
    CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

/// The integer a db_bench key was made from (its first 8 bytes, big-endian).
fn key_int(key: &[u8]) -> u64 {
    u64::from_be_bytes(key[..8].try_into().expect("16-byte keys"))
}

/// True for randomtransaction's keys (decimal digits only), which db_bench's integer keys,
/// binary in their first bytes, never are at the sizes the tests use.
fn is_text_key(key: &[u8]) -> bool {
    !key.is_empty() && key.iter().all(u8::is_ascii_digit)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("text")
}

/// A model database; calls from any benchmark thread are logged in order of their arrival and
/// handed to the opening thread's log when it closes.
#[derive(Debug)]
struct ModelEngine {
    dir: PathBuf,
    map: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
    calls: Mutex<Vec<Call>>,
}

impl ModelEngine {
    fn log(&self, call: Call) {
        self.calls.lock().expect("calls").push(call);
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<Vec<u8>, Vec<u8>>> {
        self.map.lock().expect("map")
    }
}

#[derive(Debug, Default)]
struct ModelBatch(Vec<(Vec<u8>, Option<Vec<u8>>)>);

impl BenchBatch for ModelBatch {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.0.push((key.to_vec(), Some(value.to_vec())));
        Ok(())
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.0.push((key.to_vec(), None));
        Ok(())
    }
}

#[derive(Debug)]
struct ModelIter {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    pos: Option<usize>,
}

impl BenchIter for ModelIter {
    fn seek_to_first(&mut self) {
        self.pos = (!self.entries.is_empty()).then_some(0);
    }
    fn seek_to_last(&mut self) {
        self.pos = self.entries.len().checked_sub(1);
    }
    fn seek(&mut self, target: &[u8]) {
        let i = self.entries.partition_point(|(k, _)| k.as_slice() < target);
        self.pos = (i < self.entries.len()).then_some(i);
    }
    fn next(&mut self) {
        self.pos = self.pos.map(|p| p + 1).filter(|&p| p < self.entries.len());
    }
    fn prev(&mut self) {
        self.pos = self.pos.and_then(|p| p.checked_sub(1));
    }
    fn valid(&self) -> bool {
        self.pos.is_some()
    }
    fn key(&self) -> &[u8] {
        &self.entries[self.pos.expect("valid")].0
    }
    fn value(&self) -> &[u8] {
        &self.entries[self.pos.expect("valid")].1
    }
    fn status(&self) -> Result<()> {
        Ok(())
    }
}

impl BenchEngine for ModelEngine {
    type Value<'a> = Vec<u8>;
    type WriteOptions = WriteMode;
    type Batch = ModelBatch;
    type Iter<'a> = ModelIter;

    fn open(dir: &Path, _options: &EngineOptions) -> Result<Self> {
        // A CURRENT file makes the directory a database for `destroy`'s safety check; without
        // one, the database was destroyed and starts empty.
        let existed = dir.join("CURRENT").exists();
        std::fs::create_dir_all(dir).expect("create dir");
        std::fs::write(dir.join("CURRENT"), b"model\n").expect("write CURRENT");
        let stored = STORED.with(|s| s.borrow_mut().remove(dir));
        let map = stored.filter(|_| existed).unwrap_or_default();
        Ok(ModelEngine {
            dir: dir.to_path_buf(),
            map: Mutex::new(map),
            calls: Mutex::new(Vec::new()),
        })
    }
    fn describe(&self) -> String {
        "model".to_string()
    }
    fn write_options(&self, mode: WriteMode) -> Result<WriteMode> {
        if mode.sync && mode.disable_wal {
            return Err(BenchError::Usage("sync with disable_wal".to_string()));
        }
        Ok(mode)
    }
    fn put(&self, wo: &WriteMode, key: &[u8], value: &[u8]) -> Result<()> {
        self.log(Call::Put(key_int(key), *wo));
        self.map().insert(key.to_vec(), value.to_vec());
        Ok(())
    }
    fn delete(&self, wo: &WriteMode, key: &[u8]) -> Result<()> {
        self.log(Call::Delete(key_int(key), *wo));
        self.map().remove(key);
        Ok(())
    }
    fn new_batch(&self) -> ModelBatch {
        ModelBatch::default()
    }
    fn write(&self, wo: &WriteMode, batch: ModelBatch) -> Result<()> {
        if batch.0.iter().all(|(k, v)| is_text_key(k) && v.is_some()) && !batch.0.is_empty() {
            let puts = batch
                .0
                .iter()
                .map(|(k, v)| (text(k), text(v.as_deref().expect("put"))))
                .collect();
            self.log(Call::WriteText(puts, *wo));
        } else {
            let ops = batch
                .0
                .iter()
                .map(|(k, v)| (key_int(k), v.is_some()))
                .collect();
            self.log(Call::Write(ops, *wo));
        }
        let mut map = self.map();
        for (k, v) in batch.0 {
            match v {
                Some(v) => map.insert(k, v),
                None => map.remove(&k),
            };
        }
        Ok(())
    }
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if is_text_key(key) {
            self.log(Call::GetText(text(key)));
        } else {
            self.log(Call::Get(key_int(key)));
        }
        Ok(self.map().get(key).cloned())
    }
    fn multi_get(&self, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.log(Call::MultiGet(keys.iter().map(|k| key_int(k)).collect()));
        let map = self.map();
        Ok(keys.iter().map(|k| map.get(*k).cloned()).collect())
    }
    fn iter(&self) -> Result<ModelIter> {
        self.log(Call::Iter);
        Ok(ModelIter {
            entries: self
                .map()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            pos: None,
        })
    }
    fn flush(&self) -> Result<()> {
        self.log(Call::Flush);
        Ok(())
    }
    fn compact(&self) -> Result<()> {
        self.log(Call::Compact);
        Ok(())
    }
    fn wait_for_compaction(&self) -> Result<()> {
        self.log(Call::WaitForCompaction);
        Ok(())
    }
    fn properties(&self) -> Vec<(String, String)> {
        vec![("keys".to_string(), self.map().len().to_string())]
    }
    fn close(self) -> Result<()> {
        let calls = self.calls.into_inner().expect("calls");
        CALLS.with(|c| c.borrow_mut().extend(calls));
        STORED.with(|s| {
            s.borrow_mut()
                .insert(self.dir, self.map.into_inner().expect("map"))
        });
        Ok(())
    }
}

#[derive(Debug, Parser)]
struct Flags {
    #[command(flatten)]
    bench: BenchArgs,
}

fn args(flags: &[&str]) -> BenchArgs {
    let argv = std::iter::once("bench").chain(flags.iter().copied());
    Flags::try_parse_from(argv).expect("flags parse").bench
}

/// Runs `benchmarks` in order on a model database in `dir` (kept between calls) and returns the
/// printed lines, the calls and the database's contents as key integers.
fn bench(dir: &Path, flags: &[&str], benchmarks: &[&str]) -> (Vec<String>, Vec<Call>, Vec<u64>) {
    let args = args(flags);
    let options = args.engine_options().expect("options");
    take_calls();
    let mut run =
        Run::<ModelEngine>::start(&args, &options, dir.to_path_buf(), args.seed).expect("start");
    let lines = benchmarks
        .iter()
        .map(|name| run.execute(name).expect("benchmark"))
        .collect();
    run.finish().expect("close");
    let keys = STORED.with(|s| {
        s.borrow()[dir]
            .keys()
            .filter(|k| !is_text_key(k))
            .map(|k| key_int(k))
            .collect()
    });
    (lines, take_calls(), keys)
}

/// db_bench's result line of benchmark `name` (the first line of its printed block).
fn line<'a>(lines: &'a [String], name: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l.starts_with(&format!("{name:<12} :")))
        .and_then(|block| block.lines().next())
        .unwrap_or_else(|| panic!("no {name} line in {lines:?}"))
}

const PLAIN: WriteMode = WriteMode {
    sync: false,
    disable_wal: false,
};

#[test]
fn fillseq_puts_every_key_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let (lines, calls, keys) = bench(&db, &["--num=7", "--seed=1"], &["fillseq"]);
    let expected: Vec<Call> = (0..7).map(|k| Call::Put(k, PLAIN)).collect();
    assert_eq!(calls, expected);
    assert_eq!(keys, (0..7).collect::<Vec<_>>());
    assert_operations(&lines, "fillseq", 7);
}

#[test]
fn random_fills_draw_a_database_per_batch_then_the_keys() {
    // db_bench's DoWrite: per call, one draw picks the database (SelectDBWithCfh), then one draw
    // per key; --writes=23 in batches of 5 is 4 calls (db_bench's Duration stops at 20 < 23).
    let dir = tempfile::tempdir().expect("tempdir");
    let flags = ["--num=100", "--writes=23", "--batch_size=5", "--seed=9"];
    let (lines, calls, _) = bench(&dir.path().join("db"), &flags, &["fillrandom"]);
    let mut rng = Random64::new(9 + 1);
    let expected: Vec<Call> = (0..4)
        .map(|_| {
            rng.next_u64();
            let keys = (0..5).map(|_| (rng.next_u64() % 100, true)).collect();
            Call::Write(keys, PLAIN)
        })
        .collect();
    assert_eq!(calls, expected);
    assert_operations(&lines, "fillrandom", 20);
}

#[test]
fn reads_draw_a_database_per_read_and_count_found_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    bench(&db, &["--num=40", "--seed=5"], &["fillseq"]);
    // Keys 0..40 exist; readrandom reads from a key space of 80, so about half are found.
    let flags = ["--num=80", "--reads=30", "--seed=5", "--use_existing_db=1"];
    let (lines, calls, _) = bench(&db, &flags, &["readrandom"]);
    let mut rng = Random64::new(5 + 1);
    let read: Vec<u64> = (0..30)
        .map(|_| {
            rng.next_u64();
            rng.next_u64() % 80
        })
        .collect();
    assert_eq!(
        calls,
        read.iter().map(|&k| Call::Get(k)).collect::<Vec<_>>()
    );
    let found = read.iter().filter(|&&k| k < 40).count();
    assert!(
        line(&lines, "readrandom").ends_with(&format!("({found} of 30 found)")),
        "{lines:?}"
    );
}

/// readmissing reads readrandom's keys, one byte longer: none is found.
#[test]
fn readmissing_reads_the_random_keys_made_longer_and_finds_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    bench(&db, &["--num=40", "--seed=5"], &["fillseq"]);
    let flags = ["--num=40", "--reads=30", "--seed=5", "--use_existing_db=1"];
    let (lines, calls, _) = bench(&db, &flags, &["readmissing"]);
    let mut rng = Random64::new(5 + 1);
    let read: Vec<u64> = (0..30)
        .map(|_| {
            rng.next_u64();
            rng.next_u64() % 40
        })
        .collect();
    assert_eq!(
        calls,
        read.iter().map(|&k| Call::Get(k)).collect::<Vec<_>>()
    );
    assert!(
        line(&lines, "readmissing").ends_with("(0 of 30 found)"),
        "{lines:?}"
    );
}

#[test]
fn multireadrandom_reads_whole_batches_of_random_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    bench(&db, &["--num=50", "--seed=3"], &["fillseq"]);
    let flags = [
        "--num=50",
        "--reads=20",
        "--batch_size=6",
        "--seed=3",
        "--use_existing_db=1",
    ];
    let (lines, calls, _) = bench(&db, &flags, &["multireadrandom"]);
    let batches: Vec<&Call> = calls.iter().collect();
    // 20 reads in batches of 6: 3 calls (18 keys), each after one database draw.
    let mut rng = Random64::new(3 + 1);
    let expected: Vec<Call> = (0..3)
        .map(|_| {
            rng.next_u64();
            Call::MultiGet((0..6).map(|_| rng.next_u64() % 50).collect())
        })
        .collect();
    assert_eq!(batches, expected.iter().collect::<Vec<_>>());
    let l = line(&lines, "multireadrandom");
    assert!(
        l.contains(" 18 operations;") && l.ends_with("(18 of 18 found)"),
        "{l}"
    );
}

#[test]
fn filluniquerandom_writes_the_db_bench_permutation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, calls, keys) = bench(
        &dir.path().join("db"),
        &["--num=300", "--seed=77"],
        &["filluniquerandom"],
    );
    let order = unique_random_order(300, 77);
    let written: Vec<u64> = calls
        .iter()
        .map(|c| match c {
            Call::Put(k, _) => *k,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(written, order);
    assert_eq!(keys, (0..300).collect::<Vec<_>>(), "every key once");
    let dir = tempfile::tempdir().expect("tempdir");
    let args = args(&["--num=10", "--writes=11", "--seed=1"]);
    let options = args.engine_options().expect("options");
    let mut run =
        Run::<ModelEngine>::start(&args, &options, dir.path().join("db"), 1).expect("start");
    let err = run
        .execute("filluniquerandom")
        .expect_err("more writes than keys");
    assert!(err.to_string().contains("must not exceed --num"), "{err}");
}

#[test]
fn fillsync_syncs_random_writes_over_a_thousandth_of_the_key_space() {
    let dir = tempfile::tempdir().expect("tempdir");
    let flags = ["--num=5000", "--writes=20", "--seed=2"];
    let (lines, calls, _) = bench(&dir.path().join("db"), &flags, &["fillsync"]);
    assert_eq!(calls.len(), 20);
    let synced = WriteMode {
        sync: true,
        disable_wal: false,
    };
    assert!(
        calls
            .iter()
            .all(|c| matches!(c, Call::Put(k, m) if *k < 5 && *m == synced)),
        "{calls:?}"
    );
    let l = line(&lines, "fillsync");
    assert!(
        l.contains(" 20 operations;") && l.ends_with("(5 ops)"),
        "{l}"
    );
    // The device's synced-append rate is probed and printed beside the result.
    let probe = lines
        .iter()
        .flat_map(|block| block.lines())
        .find(|l| l.starts_with("  device sync rate: "))
        .expect("a device sync rate line");
    assert!(probe.contains("138 B appends + fdatasync"), "{probe}");
    let args = args(&["--num=5000", "--disable_wal=1"]);
    let options = args.engine_options().expect("options");
    let mut run =
        Run::<ModelEngine>::start(&args, &options, dir.path().join("db2"), 1).expect("start");
    assert!(run.execute("fillsync").is_err(), "sync needs the WAL");
}

#[test]
fn deletes_remove_batches_in_order_or_at_random() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let flags = ["--num=30", "--deletes=10", "--batch_size=3", "--seed=4"];
    let (lines, calls, keys) = bench(&db, &flags, &["fillseq", "deleteseq", "readseq"]);
    // The fill writes 10 batches of 3; the 10 deletes are 3 batches, keys 0..9.
    let deletes: Vec<&Call> = calls
        .iter()
        .filter(|c| matches!(c, Call::Write(ops, _) if ops.iter().all(|(_, put)| !put)))
        .collect();
    let expected: Vec<Call> = (0..3)
        .map(|b| Call::Write((3 * b..3 * b + 3).map(|k| (k, false)).collect(), PLAIN))
        .collect();
    assert_eq!(deletes, expected.iter().collect::<Vec<_>>());
    assert_eq!(keys, (9..30).collect::<Vec<_>>());
    assert_operations(&lines, "readseq", 21);

    let flags = ["--num=30", "--deletes=12", "--seed=4", "--sync=1"];
    let (_, calls, keys) = bench(&db, &flags, &["fillseq", "deleterandom"]);
    let mut rng = Random64::new(4 + 2);
    let synced = WriteMode {
        sync: true,
        disable_wal: false,
    };
    let expected: Vec<Call> = (0..12)
        .map(|_| {
            rng.next_u64();
            Call::Delete(rng.next_u64() % 30, synced)
        })
        .collect();
    let deleted: Vec<Call> = calls
        .into_iter()
        .filter(|c| matches!(c, Call::Delete(..)))
        .collect();
    assert_eq!(deleted, expected);
    let remaining: Vec<u64> = (0..30)
        .filter(|k| !expected.contains(&Call::Delete(*k, synced)))
        .collect();
    assert_eq!(keys, remaining);
}

#[test]
fn seekrandom_opens_an_iterator_per_seek_and_scans_count_entries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let flags = ["--num=25", "--reads=10", "--seek_nexts=2", "--seed=8"];
    let (lines, calls, _) = bench(
        &db,
        &flags,
        &["fillseq", "seekrandom", "readreverse", "flush"],
    );
    let iters = calls.iter().filter(|c| **c == Call::Iter).count();
    assert_eq!(iters, 10 + 1, "one per seek, one for readreverse");
    assert!(calls.ends_with(&[Call::Flush]));
    assert!(
        line(&lines, "seekrandom").ends_with("(10 of 10 found)"),
        "{lines:?}"
    );
    assert_operations(&lines, "readreverse", 10);
}

#[test]
fn use_existing_db_keeps_the_database_and_skips_fills() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    bench(&db, &["--num=12", "--seed=1"], &["fillseq"]);
    let flags = ["--num=12", "--seed=1", "--use_existing_db=1"];
    let (lines, calls, keys) = bench(&db, &flags, &["fillrandom", "readseq"]);
    assert_eq!(
        lines[0],
        "fillrandom   : skipped (--use_existing_db is true)"
    );
    assert_eq!(calls, [Call::Iter]);
    assert_eq!(keys.len(), 12);
    // Without it, the database is destroyed at the start.
    let (_, _, keys) = bench(&db, &["--num=12", "--seed=1"], &["flush"]);
    assert!(keys.is_empty());
}

#[test]
fn unknown_benchmarks_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let args = args(&["--benchmarks=fillseq,mixgraph", "--num=10"]);
    let options = args.engine_options().expect("options");
    let err = run::<ModelEngine>(
        &BenchArgs {
            db: Some(db.clone()),
            ..args
        },
        &options,
    )
    .expect_err("unknown benchmark");
    assert!(err.to_string().contains("mixgraph"), "{err}");
    assert!(!db.exists(), "nothing opened");
}

#[test]
fn compact_and_waitforcompaction_call_the_engine() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let (lines, calls, _) = bench(
        &db,
        &["--num=10", "--seed=3"],
        &["fillseq", "compact", "waitforcompaction"],
    );
    assert!(calls.ends_with(&[Call::Compact, Call::WaitForCompaction]));
    assert!(line(&lines, "compact").starts_with("compact "), "{lines:?}");
    assert!(line(&lines, "waitforcompaction").starts_with("waitforcompaction"));
}

/// The puts a db_bench random-write thread seeded `seed` makes: per call one database draw,
/// then `batch` keys.
fn random_puts(seed: u64, calls: usize, num: u64) -> Vec<u64> {
    let mut rng = Random64::new(seed);
    (0..calls)
        .map(|_| {
            rng.next_u64();
            rng.next_u64() % num
        })
        .collect()
}

/// The keys of the single puts among `calls`, in call order.
fn put_keys(calls: &[Call]) -> Vec<u64> {
    calls
        .iter()
        .filter_map(|c| match c {
            Call::Put(k, _) => Some(*k),
            _ => None,
        })
        .collect()
}

/// The keys of the gets among `calls`, in call order.
fn get_keys(calls: &[Call]) -> Vec<u64> {
    calls
        .iter()
        .filter_map(|c| match c {
            Call::Get(k) => Some(*k),
            _ => None,
        })
        .collect()
}

/// Asserts that benchmark `name`'s result line reports `n` operations.
fn assert_operations(lines: &[String], name: &str, n: u64) {
    let wanted = format!(" {n} operations;");
    assert!(line(lines, name).contains(&wanted), "{lines:?}");
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

#[test]
fn threads_each_draw_their_own_db_bench_seed_and_results_merge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let flags = ["--num=50", "--writes=30", "--threads=3", "--seed=11"];
    let (lines, calls, _) = bench(&db, &flags, &["fillrandom", "readrandom"]);
    // fillrandom: threads seeded 12, 13, 14; readrandom: 15, 16, 17.
    let puts: Vec<u64> = put_keys(&calls);
    let expected: Vec<u64> = (12..15).flat_map(|s| random_puts(s, 30, 50)).collect();
    assert_eq!(sorted(puts), sorted(expected));
    let gets: Vec<u64> = get_keys(&calls);
    let expected: Vec<u64> = (15..18).flat_map(|s| random_puts(s, 50, 50)).collect();
    assert_eq!(sorted(gets), sorted(expected));
    assert_operations(&lines, "fillrandom", 90);
    assert_operations(&lines, "readrandom", 150);
}

#[test]
fn duration_runs_random_loops_until_the_time_is_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let flags = [
        "--num=20",
        "--reads=5",
        "--writes=5",
        "--duration=1",
        "--seed=3",
    ];
    let started = std::time::Instant::now();
    let (lines, _, _) = bench(&db, &flags, &["overwrite", "readrandom", "fillseq"]);
    assert!(started.elapsed() >= std::time::Duration::from_secs(2));
    let ops = |name: &str| -> u64 {
        let l = line(&lines, name);
        let before = l.split(" operations;").next().expect("ops");
        before
            .rsplit(' ')
            .next()
            .expect("n")
            .parse()
            .expect("number")
    };
    // The counts are ignored: the loops stop at a clock check, every 1000 operations.
    assert!(ops("overwrite") >= 999, "{lines:?}");
    assert!(ops("readrandom") >= 999, "{lines:?}");
    // fillseq is not a random-key benchmark: db_bench ignores --duration there.
    assert_eq!(ops("fillseq"), 5, "{lines:?}");
}

#[test]
fn readwhilewriting_runs_readers_and_a_background_writer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let flags = ["--num=40", "--reads=200", "--threads=2", "--seed=20"];
    let (lines, calls, _) = bench(&db, &flags, &["readwhilewriting"]);
    // Writer: tid 0, seed 21; readers: seeds 22 and 23.
    let gets: Vec<u64> = get_keys(&calls);
    let expected: Vec<u64> = (22..24).flat_map(|s| random_puts(s, 200, 40)).collect();
    assert_eq!(sorted(gets), sorted(expected));
    let puts: Vec<u64> = put_keys(&calls);
    assert_eq!(puts, random_puts(21, puts.len(), 40), "the writer's keys");
    let block = lines[0].as_str();
    assert!(
        line(&lines, "readwhilewriting").contains(" 400 operations;"),
        "only the readers are in the result line: {block}"
    );
    assert!(
        block.contains(&format!(
            "background writer (not in the result line, as db_bench): {} puts",
            puts.len()
        )),
        "{block}"
    );
}

#[test]
fn readrandomwriterandom_and_updaterandom_follow_db_bench() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let flags = [
        "--num=30",
        "--reads=100",
        "--readwritepercent=60",
        "--seed=2",
    ];
    let (lines, calls, _) = bench(&db, &flags, &["readrandomwriterandom"]);
    // One round of 100: 60 gets then 40 puts, each after a database draw.
    let keys = random_puts(3, 100, 30);
    let expected: Vec<Call> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            if i < 60 {
                Call::Get(k)
            } else {
                Call::Put(k, PLAIN)
            }
        })
        .collect();
    assert_eq!(calls, expected);
    assert!(
        line(&lines, "readrandomwriterandom").ends_with("( reads:60 writes:40 total:100 found:0)"),
        "{lines:?}"
    );
    let flags = ["--num=30", "--writes=8", "--seed=2", "--use_existing_db=1"];
    let (lines, calls, _) = bench(&db, &flags, &["updaterandom"]);
    let keys = random_puts(3, 8, 30);
    let expected: Vec<Call> = keys
        .iter()
        .flat_map(|&k| [Call::Get(k), Call::Put(k, PLAIN)])
        .collect();
    assert_eq!(calls, expected);
    assert!(
        line(&lines, "updaterandom").contains("( updates:8 found:"),
        "{lines:?}"
    );
}

#[test]
fn every_step_has_efficiency_series_and_percentile_lines_and_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let json = dir.path().join("r.json");
    let plots = dir.path().join("plots");
    let a = args(&[
        "--num=100",
        "--seed=4",
        "--histogram=1",
        "--benchmarks=fillrandom,readrandom",
    ]);
    let options = a.engine_options().expect("options");
    let a = BenchArgs {
        db: Some(db),
        report_json: Some(json.clone()),
        report_dir: Some(plots.clone()),
        ..a
    };
    let mut printed = Vec::new();
    let names = benchmark_names(&a.benchmarks).expect("names");
    let report = run_steps::<ModelEngine>(&a, &options, &names, |s| printed.push(s.to_string()))
        .expect("run");
    crate::bench::write_reports(&a, &report).expect("reports");
    let fill = printed
        .iter()
        .find(|b| b.starts_with("fillrandom   :"))
        .expect("fill block");
    let lines: Vec<&str> = fill.lines().collect();
    assert!(lines[1].starts_with("  efficiency: cpu "), "{fill}");
    assert!(lines[1].contains("space-amp"), "{fill}");
    assert!(lines[2].starts_with("  throughput"), "{fill}");
    assert!(
        lines[3].starts_with("  latency write (us): P50: "),
        "{fill}"
    );
    assert!(lines[4] == "Microseconds per write:", "{fill}");
    assert!(lines[5].starts_with("Count: 100 Average: "), "{fill}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parse");
    for key in ["engine", "flags", "argv", "final_db_bytes", "steps"] {
        assert!(doc.get(key).is_some(), "{key} in {doc}");
    }
    assert_eq!(doc["flags"]["num"], 100);
    let step = &doc["steps"][0];
    for key in [
        "name",
        "result_line",
        "threads",
        "ops",
        "seconds",
        "ops_per_sec",
        "latency",
        "per_second",
        "throughput",
        "efficiency",
    ] {
        assert!(step.get(key).is_some(), "{key} in {step}");
    }
    for key in [
        "cpu_seconds",
        "device_write_bytes",
        "write_amp_device",
        "write_amp_engine",
        "space_amp",
        "peak_rss_bytes",
        "live_keys",
    ] {
        assert!(step["efficiency"].get(key).is_some(), "{key} in {step}");
    }
    assert_eq!(
        step["efficiency"]["live_keys"],
        report.steps[0].efficiency.live_keys
    );
    assert_eq!(step["ops"], 100);
    assert!(step["latency"][0][1].get("p9999_us").is_some(), "{step}");
    for f in ["01-fillrandom-throughput.svg", "02-readrandom-latency.svg"] {
        let svg = std::fs::read_to_string(plots.join(f)).expect("plot");
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
    }
}

#[test]
fn a_repeated_flag_takes_its_last_value_as_in_db_bench() {
    let flags = Flags::try_parse_from(["bench", "--num=5", "--num=7"]).expect("repeated flag");
    assert_eq!(flags.bench.num, 7);
}

#[test]
fn unknown_flags_are_errors_that_name_the_flag() {
    let argv = ["bench", "--no_such_flag=3"];
    let err = Flags::try_parse_from(argv).expect_err("unknown flag");
    let text = err.to_string();
    assert!(text.contains("--no_such_flag"), "{text}");
    let err = Flags::try_parse_from(["bench", "--compaction_style=7"])
        .expect("parses")
        .bench
        .engine_options()
        .expect_err("bad style");
    assert!(err.to_string().contains("--compaction_style=7"), "{err}");
    let err = Flags::try_parse_from(["bench", "--threads=0"]).expect_err("zero threads");
    assert!(err.to_string().contains("--threads"), "{err}");
}

#[path = "workloads_randomtxn_tests.rs"]
mod randomtxn_tests;

#[test]
fn bluestore_writes_object_batches_and_drains_its_deferred_records() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("db");
    let args = args(&["--num=50", "--writes=100", "--threads=2", "--seed=7"]);
    let options = args.engine_options().expect("options");
    take_calls();
    let mut run = Run::<ModelEngine>::start(&args, &options, dir.clone(), 7).expect("start");
    let fill = run.execute("bluestore_fill").expect("fill");
    let write = run.execute("bluestore_write").expect("write");
    let steps = run.steps().to_vec();
    run.finish().expect("close");
    assert!(fill.starts_with("bluestore_fill :"), "{fill}");
    assert!(write.starts_with("bluestore_write :"), "{write}");
    let calls = take_calls();
    let batches: Vec<&Vec<(u64, bool)>> = calls
        .iter()
        .map(|c| match c {
            Call::Write(ops, mode) => {
                assert_eq!(*mode, PLAIN);
                ops
            }
            other => panic!("unexpected call {other:?}"),
        })
        .collect();
    // The fill: one batch per object, onode + 4 shards + 8 bitmap keys (object 0 also the
    // statistics key). Then 100 transactions per thread of 5 puts, with the delete of the
    // deferred record 32 back from the 33rd on, and one batch per thread of its last 32 deletes.
    let sizes: Vec<usize> = batches.iter().map(|b| b.len()).collect();
    assert_eq!(sizes.len(), 50 + 200 + 2);
    assert_eq!(sizes[..50].iter().filter(|&&n| n == 14).count(), 1);
    assert!(sizes[..50].iter().all(|&n| n == 13 || n == 14));
    // The threads' batches interleave: count them by size.
    let of_size = |n: usize| sizes[50..].iter().filter(|&&s| s == n).count();
    assert_eq!((of_size(5), of_size(6), of_size(32)), (64, 136, 2));
    let mut drains = batches[50..].iter().filter(|b| b.len() == 32);
    assert!(drains.all(|b| b.iter().all(|(_, put)| !put)));

    let stored = STORED.with(|s| s.borrow()[&dir].clone());
    let count = |prefix: u8| stored.keys().filter(|k| k[0] == prefix).count();
    assert_eq!(count(b'O'), 50 * 5);
    assert_eq!(count(b'b'), 50 * 8);
    assert_eq!(count(b'T'), 1);
    assert_eq!(count(b'L'), 0, "every deferred record was removed");
    let mut key = Vec::new();
    for i in [0, 17, 49] {
        bluestore::onode_key(i, &mut key);
        assert_eq!(stored[&key].len(), bluestore::onode_size(i));
        bluestore::shard_key(i, 3, &mut key);
        assert_eq!(stored[&key].len(), bluestore::shard_size(i, 3));
    }
    // Write-amp's denominator is the batches' key and value bytes; the live data is exactly
    // what the database holds.
    let live: u64 = stored.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum();
    let fill_bytes = steps[0].efficiency.user_bytes_written;
    assert_eq!(fill_bytes, live, "the fill wrote each live entry once");
    assert_eq!(steps[0].efficiency.live_bytes, live);
    assert_eq!(steps[1].efficiency.live_bytes, live);
    assert_eq!(steps[1].efficiency.live_keys, stored.len() as u64);
    assert_eq!(steps[1].ops, 200);
    assert!(steps[1].efficiency.user_bytes_written > 200 * 4096);
    assert!(steps[1].efficiency.thread_cpu_seconds.is_some());
    assert!(
        steps[1].efficiency.live_keys_exact,
        "the fill ran in this run"
    );

    // Without the fill, what else the database holds is unknown: the live data is an estimate.
    let dir = tmp.path().join("db2");
    let mut run = Run::<ModelEngine>::start(&args, &options, dir, 7).expect("start");
    run.execute("bluestore_write").expect("write");
    assert!(!run.steps()[0].efficiency.live_keys_exact);
    run.finish().expect("close");
    take_calls();
}
