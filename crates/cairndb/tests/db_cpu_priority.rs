//! Background threads at a lowered CPU priority (`DbOptions::compaction_cpu_priority` and
//! `flush_cpu_priority`, RocksDB's `Env::LowerThreadPoolCPUPriority`): compaction jobs run at
//! the priority asked, subcompactions included, the flush thread at its own, the opening thread
//! keeps its priority, and the default leaves every thread as the opener's.
//!
//! Linux keeps the nice value and the scheduling policy per thread; the test reads them from
//! `/proc/thread-self/stat` inside a compaction filter (code that runs in the compaction job)
//! and from `/proc/self/task/*/stat` for the flush thread.

#![cfg(target_os = "linux")]

mod common;

use std::sync::{Arc, Mutex};

use cairndb::compaction::{CompactionFilter, FilterDecision};
use cairndb::fs::MemFs;
use cairndb::options::{CpuPriority, Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::{compaction_opts, key, DIR};

/// A thread's (nice value, scheduling policy).
type Priority = (i64, i64);

/// `SCHED_OTHER` and `SCHED_IDLE` as the kernel numbers them.
const SCHED_OTHER: i64 = 0;
const SCHED_IDLE: i64 = 5;

/// (nice, scheduling policy) from a `/proc/.../stat` line: fields 19 and 41, counted after the
/// command name in parentheses (which may hold spaces).
fn nice_and_policy(stat: &str) -> Priority {
    let rest = &stat[stat.rfind(')').expect("comm") + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state).
    let field = |n: usize| fields[n - 3].parse::<i64>().expect("number");
    (field(19), field(41))
}

fn this_thread() -> Priority {
    nice_and_policy(&std::fs::read_to_string("/proc/thread-self/stat").expect("stat"))
}

/// (nice, policy) of every thread of this process whose name starts with `prefix`.
fn threads_named(prefix: &str) -> Vec<Priority> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").expect("tasks") {
        let dir = task.expect("task").path();
        // A thread may end between the listing and the reads.
        let (Ok(comm), Ok(stat)) = (
            std::fs::read_to_string(dir.join("comm")),
            std::fs::read_to_string(dir.join("stat")),
        ) else {
            continue;
        };
        if comm.trim_end().starts_with(prefix) {
            found.push(nice_and_policy(&stat));
        }
    }
    found
}

/// Records the (nice, policy) of every thread a compaction job filters entries on.
#[derive(Debug, Default)]
struct RecordPriority {
    seen: Mutex<Vec<Priority>>,
}

impl CompactionFilter for RecordPriority {
    fn name(&self) -> &str {
        "RecordPriority"
    }
    fn filter(&self, _level: usize, _key: &[u8], _value: &[u8]) -> FilterDecision {
        let now = this_thread();
        let mut seen = self.seen.lock().unwrap();
        if !seen.contains(&now) {
            seen.push(now);
        }
        FilterDecision::Keep
    }
}

/// Opens a database with `o` and the recording filter, writes enough to flush and compact
/// (checking the values back), and returns the priorities the compactions ran at with those
/// of the flush thread while the database was open.
fn run(mut o: Options) -> (Vec<Priority>, Vec<Priority>) {
    let record = Arc::new(RecordPriority::default());
    o.cf.compaction_filter = Some(record.clone());
    // Two subcompactions where a compaction can be split: their threads are the job's too.
    o.db.max_subcompactions = 2;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let flush_threads = threads_named("cairndb-flush");
    let w = WriteOptions::default();
    for round in 0..8u32 {
        for i in 0..400 {
            db.put(&w, &key(i), format!("{round}").as_bytes())
                .expect("put");
        }
        db.flush().expect("flush");
    }
    db.wait_for_compactions().expect("compactions");
    for i in 0..400 {
        assert_eq!(
            db.get(&ReadOptions::default(), &key(i))
                .expect("get")
                .as_deref(),
            Some(&b"7"[..])
        );
    }
    // Some compaction was split, so its second range ran on a thread the job spawned.
    let levels = db.compaction_stats_cf(&db.default_column_family()).levels;
    let jobs: u64 = levels.iter().map(|l| l.compactions - l.trivial_moves).sum();
    let ranges: u64 = levels.iter().map(|l| l.subcompactions).sum();
    assert!(ranges > jobs, "a compaction ran in two ranges: {levels:?}");
    db.close().expect("close");
    let seen = record.seen.lock().unwrap().clone();
    (seen, flush_threads)
}

// One test: the thread listing sees every database of the process, so nothing else may open one
// at the same time.
#[test]
fn background_threads_run_at_the_priority_asked() {
    let opener = this_thread();

    let mut lowered = compaction_opts();
    lowered.db.compaction_cpu_priority = CpuPriority::Low;
    lowered.db.flush_cpu_priority = CpuPriority::Idle;
    let (compactions, flushes) = run(lowered);
    assert!(!compactions.is_empty(), "a compaction filtered entries");
    assert_eq!(
        compactions,
        vec![(19, SCHED_OTHER)],
        "every compaction thread at nice 19"
    );
    assert_eq!(flushes.len(), 1, "one flush thread: {flushes:?}");
    assert_eq!(flushes[0].1, SCHED_IDLE, "the flush thread is SCHED_IDLE");
    assert_eq!(
        this_thread(),
        opener,
        "the opening thread keeps its priority"
    );
    assert!(
        threads_named("cairndb-").is_empty(),
        "close joined every background thread"
    );

    let mut idle = compaction_opts();
    idle.db.compaction_cpu_priority = CpuPriority::Idle;
    let (compactions, flushes) = run(idle);
    assert!(!compactions.is_empty());
    assert!(
        compactions.iter().all(|&(_, policy)| policy == SCHED_IDLE),
        "{compactions:?}"
    );
    assert_eq!(flushes, vec![opener], "the flush thread stays at normal");

    let (compactions, flushes) = run(compaction_opts());
    assert_eq!(
        compactions,
        vec![opener],
        "the default leaves compactions as the opener"
    );
    assert_eq!(flushes, vec![opener]);
}
