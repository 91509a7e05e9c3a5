//! The compaction backlog controller through the database (`db/backlog_control.rs`): it sets a
//! backlog-controlled rate limiter's rate below the ceiling while nothing is owed, back to the
//! ceiling when L0 piles up, follows `set_db_options`, gives the ceiling back at close, and
//! serves one database at a time.
//!
//! The controller ticks once a second in real time, so these tests wait for the limiter's rate
//! to reach a state (polling, with a deadline that only catches a hang); they assert no timing.

mod common;

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cairndb::compaction::{CompactionFilter, FilterDecision};
use cairndb::fs::MemFs;
use cairndb::options::{Options, RateLimiter, WriteOptions};
use cairndb::{Db, Error};
use common::{compaction_opts, key, DIR};

const CEILING: u64 = 64 << 20;

/// Waits until `what` holds; panics after a minute (a hang, not a measurement).
#[track_caller]
fn wait_until(why: &str, what: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !what() {
        assert!(Instant::now() < deadline, "never happened: {why}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A compaction filter that tells the test a compaction started, then holds it until the
/// test lets it go: L0 keeps its files meanwhile.
#[derive(Debug)]
struct Gate {
    entered: Mutex<Option<Sender<()>>>,
    release: Mutex<Receiver<()>>,
}

impl CompactionFilter for Gate {
    fn name(&self) -> &str {
        "Gate"
    }
    fn filter(&self, _level: usize, _key: &[u8], _value: &[u8]) -> FilterDecision {
        if let Some(tx) = self.entered.lock().unwrap().take() {
            tx.send(()).unwrap();
            self.release.lock().unwrap().recv().unwrap();
        }
        FilterDecision::Keep
    }
}

fn controlled_limiter() -> Arc<RateLimiter> {
    Arc::new(RateLimiter::backlog_controlled(CEILING, 100_000).expect("limiter"))
}

fn opts_with(limiter: &Arc<RateLimiter>) -> Options {
    let mut o = compaction_opts();
    o.db.rate_limiter = Some(Arc::clone(limiter));
    o
}

fn flush_one_file(db: &Db, round: u32) {
    let w = WriteOptions::default();
    for i in 0..50 {
        db.put(&w, &key(i), format!("round {round}").as_bytes())
            .expect("put");
    }
    db.flush().expect("flush");
}

#[test]
fn the_rate_falls_while_idle_and_returns_to_the_ceiling_when_l0_piles_up() {
    let limiter = controlled_limiter();
    let (entered_tx, entered) = channel();
    let (release, release_rx) = channel();
    let mut o = opts_with(&limiter);
    o.cf.compaction_filter = Some(Arc::new(Gate {
        entered: Mutex::new(Some(entered_tx)),
        release: Mutex::new(release_rx),
    }));
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    wait_until("an idle database's rate falls below the ceiling", || {
        limiter.bytes_per_second() < CEILING
    });
    // Two files start a compaction (trigger 2), which the gate holds; two more make L0 twice
    // its trigger, the point where the controller stops pacing.
    flush_one_file(&db, 0);
    flush_one_file(&db, 1);
    entered.recv().expect("a compaction started");
    flush_one_file(&db, 2);
    flush_one_file(&db, 3);
    wait_until(
        "L0 at twice its trigger sends the rate to the ceiling",
        || limiter.bytes_per_second() == CEILING,
    );
    release.send(()).unwrap();

    // A new rate through set_db_options is the new ceiling: the rate is within it at once.
    db.set_db_options(&[("rate_limiter_bytes_per_sec", "1048576")])
        .expect("set");
    assert!(limiter.bytes_per_second() <= 1 << 20);
    db.close().expect("close");
    assert_eq!(
        limiter.bytes_per_second(),
        1 << 20,
        "close restores the ceiling"
    );
}

#[test]
fn a_controlled_limiter_serves_one_open_database_at_a_time() {
    let limiter = controlled_limiter();
    let fs = MemFs::new().shared();
    let first = Db::open_with_fs(fs.clone(), "/a", opts_with(&limiter)).expect("open a");
    match Db::open_with_fs(fs.clone(), "/b", opts_with(&limiter)) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("one open database"), "{m}"),
        other => panic!(
            "a second database took the limiter: {:?}",
            other.map(|_| ())
        ),
    }
    // An uncontrolled limiter is shared freely, as in RocksDB.
    let shared = Arc::new(RateLimiter::with_rate(CEILING).expect("limiter"));
    let c = Db::open_with_fs(fs.clone(), "/c", opts_with(&shared)).expect("open c");
    let d = Db::open_with_fs(fs.clone(), "/d", opts_with(&shared)).expect("open d");
    drop((c, d));
    first.close().expect("close a");
    let second = Db::open_with_fs(fs, "/b", opts_with(&limiter)).expect("open b after a closed");
    second.close().expect("close b");
}
